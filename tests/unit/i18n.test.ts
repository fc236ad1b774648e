import { readdirSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { languageFromAcceptLanguage } from '../../app/lib/i18n'
import { en } from '../../app/locales/en'
import { fr } from '../../app/locales/fr'

function keys(resource: object, prefix = ''): string[] {
  return Object.entries(resource).flatMap(([key, value]) =>
    typeof value === 'string' ? [`${prefix}${key}`] : keys(value as object, `${prefix}${key}.`),
  )
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name)
    return statSync(full).isDirectory() ? sources(full) : /\.tsx?$/.test(name) ? [full] : []
  })
}

const root = path.resolve(import.meta.dirname, '../..')
const frKeys = keys(fr)

describe('translations', () => {
  it('has exactly the same keys in French and English, none empty', () => {
    expect(keys(en).sort()).toEqual([...frKeys].sort())
    for (const key of frKeys) {
      const get = (resource: object) => key.split('.').reduce<any>((node, part) => node[part], resource)
      expect(get(fr), key).not.toBe('')
      expect(get(en), key).not.toBe('')
    }
  })

  it('defines every key the code asks for', () => {
    const used = new Set<string>()
    const files = [...sources(path.join(root, 'app')), ...sources(path.join(root, 'worker-api', 'contract'))]
    for (const file of files) {
      const text = readFileSync(file, 'utf8')
      // t('a.b'), label: 'nav.x', breadcrumb: 'x.y', key: 'x.y' and zod messages 'validation.x'
      for (const match of text.matchAll(
        /(?:\bt\(|breadcrumb: |label: |key: |message: |, |\(|\[)'([a-zA-Z]+\.[a-zA-Z_.]+)'/g,
      )) {
        used.add(match[1] as string)
      }
    }
    expect(used.size).toBeGreaterThan(30)
    // A count's key (i18next plurals) is defined by its forms: `key_one`, `key_other`.
    const missing = [...used].filter((key) => !frKeys.includes(key) && !frKeys.includes(`${key}_other`))
    expect(missing).toEqual([])
  })

  it('says "post" in English, the portal\'s one word for a poste, never "position"', () => {
    const get = (key: string) => key.split('.').reduce<any>((node, part) => node[part], en) as string
    expect(keys(en).filter((key) => /\bpositions?\b/i.test(get(key)))).toEqual([])
  })

  it('keeps the spec messages verbatim in French', () => {
    expect(fr.access.empty).toBe('Aucun accès, merci de vous rapprocher de votre administrateur.')
    expect(fr.errors.BAD_CREDENTIAL).toBe('Identifiant ou mot de passe incorrect.')
    expect(fr.errors.USER_NOT_FINISH_REGISTRATION).toBe(
      "Vous n'avez pas terminé votre inscription. Verifiez vos mails.",
    )
    expect(fr.errors.CAPTCHA_VALIDATE_FAILED).toBe('Recaptcha non valide')
    expect(fr.errors.CAPTCHA_CHAR_INVALID).toBe(
      'Le format de la clé recaptcha est incorrecte, merci de contacter le support',
    )
    expect(fr.errors.captchaRequired).toBe('Veuillez cocher la case du captcha')
    expect(fr.errors.technical).toBe('Erreur technique')
    expect(fr.errors.TOKEN_EXPIRED).toBe('La demande de génération de votre mot de passe a expiré')
    expect(fr.errors.BAD_OLD_PASSWORD).toBe("L'ancien mot de passe renseigné est incorrect")
    expect(fr.errors.STRUCTURE_HAS_CHILD).toBe('La structure actuelle possède des structures filles')
    expect(fr.errors.POSTE_ALREADY_EXIST).toBe("Poste déjà défini pour l'utilisateur")
    expect(fr.errors.STRUCTURE_NOM_ALREADY_USED).toBe('{{nom}} déjà utilisé')
    expect(fr.structures.deleteImpossible).toBe('Suppression impossible')
    expect(fr.structures.deleteConfirm).toBe('Êtes-vous sûr de vouloir supprimer cette structure ?')
    expect(fr.structures.noParent).toMatch(/^Aucun parent trouvé/)
    expect(fr.structureUsers.noFonction).toBe('Aucune fonction trouvée - contact system admin')
    expect(fr.profile.passwordChanged).toBe('Modification du mot de passe réalisée avec succès')
    expect(fr.errors.updateFailed).toBe('Echec de la mise à jour des données')
  })
})

describe('language from the browser (spec §1)', () => {
  it.each([
    ['fr-FR,fr;q=0.9', 'fr'],
    ['en-US,en;q=0.9', 'en'],
    ['en-GB', 'en'],
    ['en', 'en'],
    ['de-DE,en;q=0.8', 'fr'],
    ['', 'fr'],
    [null, 'fr'],
  ])('%s gives %s', (header, language) => {
    expect(languageFromAcceptLanguage(header)).toBe(language)
  })
})

describe('a translation filled row by row', () => {
  it('reads as i18next would have written it, for every value and in both languages', async () => {
    const { createInstance } = await import('i18next')
    const { rowText, i18nConfig } = await import('../../app/lib/i18n')
    for (const lng of ['fr', 'en'] as const) {
      const i18n = createInstance()
      await i18n.init({ ...i18nConfig, lng, resources: { fr: { translation: fr }, en: { translation: en } } })
      const t = i18n.t.bind(i18n) as (key: string, values: Record<string, string>) => string
      const confirm = rowText(t, 'reviews.confirmOne', ['name'])
      expect(confirm({ name: 'Zoé d’Arc' })).toBe(i18n.t('reviews.confirmOne', { name: 'Zoé d’Arc' }))
      const progress = rowText(t, 'reviews.progressValue', ['done', 'total', 'confirmes', 'termines'])
      const values = { done: 3, total: 10, confirmes: 2, termines: 1 }
      expect(progress(values)).toBe(i18n.t('reviews.progressValue', values))
      expect(progress(values)).toContain('10')
    }
  })
})

describe('counts', () => {
  it('are written as the page’s language writes them, whatever the runtime’s locale: 2 900 in French, 2,900 in English', async () => {
    const { formatCount } = await import('../../app/lib/i18n')
    expect(formatCount(2900, 'fr')).toBe('2\u202f900')
    expect(formatCount(2900, 'en')).toBe('2,900')
    expect(formatCount(12, undefined)).toBe('12')
  })
})
