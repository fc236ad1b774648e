import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { isAdminPath, isRootOnlyPath } from '../../app/lib/menu'
import { afterLogin, safeRedirect } from '../../app/lib/safe-redirect'
import { themeStylesheet } from '../../app/lib/theme.server'
import { MAIL_PATTERN, mailProblem } from '../../worker-api/contract/mail-rules'
import { posteFormSchema } from '../../worker-api/contract/organisation/structure'
import { mailSchema } from '../../worker-api/contract/organisation/user'
import { createUserFormSchema } from '../../worker-api/contract/organisation/user-admin'

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

  it('knows the pages of the whole organisation, with their sub-pages, and nothing that merely starts alike', () => {
    for (const path of [
      '/pages/admin/applications',
      '/pages/admin/applications/nouvelle',
      '/pages/admin/applications/3',
      '/pages/admin/modeles',
      '/pages/admin/modeles/3',
      '/pages/admin/securite',
    ]) {
      expect(isRootOnlyPath(path), path).toBe(true)
    }
    for (const path of [
      '/pages/admin',
      '/pages/admin/listeStructures',
      '/pages/user/securite',
      '/pages/admin/securites',
    ]) {
      expect(isRootOnlyPath(path), path).toBe(false)
    }
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

describe('the address checked as it is typed (spec §5, §9)', () => {
  const long = `${'a'.repeat(41)}@portail.example`

  it('says what is wrong with the form or the length before any availability is asked', () => {
    expect(long).toHaveLength(57)
    expect(mailProblem('abc')).toBe('validation.mail')
    expect(mailProblem(long)).toBe('validation.mailMax')
    expect(mailProblem('  ')).toBe('validation.required')
    expect(mailProblem(' jean.dupont@portail.example ')).toBeNull()
  })

  it('is the rule the save applies, zod’s address pattern included', () => {
    for (const mail of ['abc', long, 'a@b', 'a..b@portail.example', "o'neil+x@sub.portail.fr", 'x@portail.example']) {
      const saved = mailSchema.safeParse(mail)
      expect(saved.success ? null : saved.error.issues[0]?.message, mail).toBe(mailProblem(mail))
      expect(MAIL_PATTERN.test(mail), mail).toBe(z.regexes.email.test(mail))
    }
  })
})

describe('an empty date (spec §5 create user, add post)', () => {
  const messages = (result: { error?: z.ZodError }, field: string) =>
    result.error?.issues.filter((issue) => issue.path.join('.') === field).map((issue) => issue.message)

  it('is said missing once, not also malformed', () => {
    const created = createUserFormSchema.safeParse({
      mail: 'jean.dupont@portail.example',
      confirmation: 'jean.dupont@portail.example',
      nom: 'Dupont',
      prenom: 'Jean',
      structure: '4',
      fonction: '2',
      dateDebut: '',
      dateFin: '  ',
    })
    expect(messages(created, 'dateDebut')).toEqual(['validation.required'])
    expect(messages(created, 'dateFin')).toEqual(['validation.required'])
    const poste = posteFormSchema.safeParse({ utilisateur: '3', fonction: '2', dateDebut: '01/01/2026', dateFin: '' })
    expect(messages(poste, 'dateFin')).toEqual(['validation.required'])
  })
})
