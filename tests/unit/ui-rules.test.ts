import { describe, expect, it } from 'vitest'
import { isAdminPath } from '../../app/lib/breadcrumb'
import { afterLogin, safeRedirect } from '../../app/lib/safe-redirect'
import { themeStylesheet } from '../../app/lib/theme.server'

describe('redirect after sign-in (DESIGN §3)', () => {
  it.each([
    ['/pages/user/me', '/pages/user/me'],
    ['/pages/admin/listeLogs?dateDebut=20260101', '/pages/admin/listeLogs?dateDebut=20260101'],
    ['//evil.example/x', '/pages/user/acces'],
    ['/\\evil.example', '/pages/user/acces'],
    ['https://evil.example', '/pages/user/acces'],
    ['javascript:alert(1)', '/pages/user/acces'],
    ['/pages/x\r\nSet-Cookie: a=b', '/pages/user/acces'],
    ['', '/pages/user/acces'],
    [null, '/pages/user/acces'],
    ['/login?redirect=/pages/user/me', '/pages/user/acces'],
  ])('%s → %s', (target, expected) => {
    expect(afterLogin(target)).toBe(expected)
  })

  it('falls back to the given path', () => {
    expect(safeRedirect('//x', '/login')).toBe('/login')
  })
})

describe('admin paths (spec §6)', () => {
  it('recognises paths with an admin segment', () => {
    expect(isAdminPath('/pages/admin/listeStructures')).toBe(true)
    expect(isAdminPath('/pages/user/acces')).toBe(false)
    expect(isAdminPath('/pages/user/administrateur')).toBe(false)
  })
})

describe('per-host stylesheet (spec §1, DESIGN §7)', () => {
  it('picks the sheet from the first label of the host, else the default', () => {
    expect(themeStylesheet(new Request('https://transport.example.org/login'))).toBe('/styles/transport.css')
    expect(themeStylesheet(new Request('https://LOGISTIQUE.example.org/'))).toBe('/styles/logistique.css')
    expect(themeStylesheet(new Request('http://localhost:8787/'))).toBe('/styles/default.css')
    expect(themeStylesheet(new Request('https://inconnu.example.org/'))).toBe('/styles/default.css')
  })
})
