import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  addYears,
  bootstrapDates,
  bootstrapStatements,
  checkMail,
  checkName,
  checkOrigin,
  NO_ADMIN,
  newToken,
  parseArgs,
  preflightSql,
  resultSql,
  setPasswordLink,
  sqlFile,
  sqlString,
  tokenHashOf,
} from '../../scripts/admin-bootstrap-lib.mjs'
import { mailSchema, nameSchema } from '../../worker-api/contract/organisation/user'
import { sha256Hex } from '../../worker-api/lib/crypto'

const REQUIRED = ['--mail', 'admin@example.org', '--domain', 'https://portail.example.org']

function errorsOf(argv: string[]): string[] {
  const parsed = parseArgs(argv)
  return 'errors' in parsed ? parsed.errors : []
}

function optionsOf(argv: string[]) {
  const parsed = parseArgs(argv)
  if (!('options' in parsed)) throw new Error(`not parsed: ${JSON.stringify(parsed)}`)
  return parsed.options
}

/** The statement with each well-formed string literal blanked out: any quote left is an injection. */
const outsideLiterals = (statement: string) => statement.replace(/'(?:[^']|'')*'/g, '?')
/** The values of a statement's string literals, quotes undoubled. */
const literals = (statement: string) =>
  [...statement.matchAll(/'((?:[^']|'')*)'/g)].map((match) => (match[1] ?? '').replaceAll("''", "'"))

const input = {
  mail: "o'neil@example.org",
  domain: 'https://portail.example.org',
  nom: "D'Artagnan'); DROP TABLE utilisateur; --",
  prenom: 'Portail',
  structure: "L'Équipe",
  tokenHash: 'a'.repeat(64),
  dates: bootstrapDates(new Date('2026-03-01T10:00:00Z')),
}

describe('admin:bootstrap arguments', () => {
  it('reads the required options and fills in the defaults', () => {
    expect(optionsOf(REQUIRED)).toEqual({
      mail: 'admin@example.org',
      domain: 'https://portail.example.org',
      remote: false,
      persistTo: null,
      nom: 'Administrateur',
      prenom: 'Portail',
      structure: null,
    })
  })

  it('takes --name=value as well, and the optional ones', () => {
    expect(
      optionsOf([
        '--mail=admin@example.org',
        '--domain=https://portail.example.org',
        '--nom',
        'Durand',
        '--prenom=Élodie',
        '--structure',
        'Holding',
        '--persist-to',
        '/tmp/d1',
      ]),
    ).toMatchObject({ nom: 'Durand', prenom: 'Élodie', structure: 'Holding', persistTo: '/tmp/d1', remote: false })
    expect(optionsOf([...REQUIRED, '--remote']).remote).toBe(true)
  })

  it('answers --help whatever else is there', () => {
    expect(parseArgs(['--help'])).toEqual({ help: true })
    expect(parseArgs(['--mail', 'x', '-h'])).toEqual({ help: true })
  })

  it('lists every mistake at once', () => {
    expect(errorsOf([])).toEqual(['--mail is required', '--domain is required'])
    expect(errorsOf(['--mail', '--domain', 'https://p.example.org', '--bogus', 'stray', '--remote=yes'])).toEqual([
      '--mail needs a value',
      'unknown option --bogus',
      'unexpected argument "stray"',
      '--remote takes no value',
      '--mail is required',
    ])
    expect(errorsOf([...REQUIRED, '--mail', 'b@example.org'])).toEqual(['--mail is given twice'])
    expect(errorsOf([...REQUIRED, '--remote', '--persist-to', '/tmp/d1'])).toEqual([
      '--persist-to is for the local D1; it cannot go with --remote',
    ])
    expect(errorsOf([...REQUIRED, '--nom', 'Li', '--prenom', 'A\nB'])).toEqual([
      '--nom must have 3 to 50 characters (it has 2)',
      '--prenom must not contain control characters',
    ])
  })

  it('accepts a mail exactly when the API does (mailSchema)', () => {
    const samples = [
      'admin@example.org',
      "o'neil@example.org",
      '  padded@example.org  ',
      `${'a'.repeat(38)}@example.org`,
      `${'a'.repeat(39)}@example.org`,
      'no-at.example.org',
      'a@b',
      'a@b.c',
      '.a@example.org',
      'a..b@example.org',
      'a b@example.org',
      '',
      '   ',
    ]
    for (const mail of samples) {
      const ours = checkMail(mail)
      const api = mailSchema.safeParse(mail)
      expect('value' in ours, mail).toBe(api.success)
      if (api.success && 'value' in ours) expect(ours.value).toBe(api.data)
    }
    fc.assert(
      fc.property(fc.oneof(fc.emailAddress(), fc.string({ maxLength: 60 })), (mail) => {
        expect('value' in checkMail(mail)).toBe(mailSchema.safeParse(mail).success)
      }),
    )
  })

  it('accepts a name as the API does (nameSchema), control characters aside', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60, unit: 'grapheme-ascii' }), (name) => {
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the one intended difference
        fc.pre(!/[\u0000-\u001f\u007f]/.test(name))
        expect('value' in checkName('nom', name)).toBe(nameSchema.safeParse(name).success)
      }),
    )
    expect(checkName('nom', 'Dupont\u0000')).toEqual({ error: '--nom must not contain control characters' })
  })

  it('takes an http(s) origin only, normalised', () => {
    expect(checkOrigin('https://Portail.Example.ORG/')).toEqual({ value: 'https://portail.example.org' })
    expect(checkOrigin('http://localhost:8787')).toEqual({ value: 'http://localhost:8787' })
    expect(checkOrigin('https://portail.example.org:443')).toEqual({ value: 'https://portail.example.org' })
    expect(checkOrigin('https://[::1]:8443')).toEqual({ value: 'https://[::1]:8443' })
    for (const bad of [
      'portail.example.org',
      'ftp://portail.example.org',
      'javascript:alert(1)',
      'https://portail.example.org/app',
      'https://portail.example.org/?x=1',
      'https://portail.example.org?',
      'https://portail.example.org#top',
      'https://user:secret@portail.example.org',
      "https://a'b.example.org",
      '',
    ]) {
      expect('error' in checkOrigin(bad), bad).toBe(true)
    }
  })
})

describe('admin:bootstrap SQL', () => {
  it('doubles single quotes in literals', () => {
    expect(sqlString("o'neil")).toBe("'o''neil'")
    expect(sqlString("''")).toBe("''''''")
    expect(sqlString('plain')).toBe("'plain'")
  })

  it('keeps every value inside its literal, quotes and all', () => {
    const statements = [...bootstrapStatements(input), preflightSql(input.mail), resultSql(input.tokenHash)]
    for (const statement of statements) expect(outsideLiterals(statement)).not.toContain("'")
    const values = statements.flatMap(literals)
    for (const value of [input.mail, input.nom, input.structure, input.domain, input.tokenHash]) {
      expect(values).toContain(value)
    }
    // The would-be injection stays a name: no statement runs it.
    expect(statements.some((s) => /DROP TABLE/.test(outsideLiterals(s)))).toBe(false)
    fc.assert(
      fc.property(fc.string(), fc.string(), (mail, nom) => {
        const statements = bootstrapStatements({ ...input, mail, nom })
        for (const statement of statements) expect(outsideLiterals(statement)).not.toContain("'")
        expect(literals(statements[3] ?? '')).toEqual(expect.arrayContaining([mail, nom]))
      }),
    )
  })

  it('writes nothing once an administrator exists, and nothing but for its own link', () => {
    const [type, structure, fonction, user, token, poste, log] = bootstrapStatements(input)
    for (const statement of [type, structure, fonction, user]) {
      expect(statement).toMatch(/^INSERT INTO \w+ \([^)]*\)\s+SELECT /)
      expect(statement).toContain(`WHERE ${NO_ADMIN}`)
    }
    expect(NO_ADMIN).toBe('NOT EXISTS (SELECT 1 FROM utilisateur WHERE admin = 1 AND supprime = 0)')
    expect(user).toContain(
      `NOT EXISTS (SELECT 1 FROM utilisateur WHERE mail = 'o''neil@example.org' COLLATE NOCASE OR login = 'o''neil@example.org' COLLATE NOCASE)`,
    )
    // The link only for the user this batch inserted; the post and the audit entry only with the link.
    expect(token).toContain(`u.created_at = '${input.dates.at}'`)
    expect(token).toContain('NOT EXISTS (SELECT 1 FROM mail_token o WHERE o.utilisateur_id = u.id)')
    for (const statement of [poste, log]) expect(statement).toContain(`WHERE t.token_hash = '${input.tokenHash}'`)
    expect(resultSql(input.tokenHash)).toContain(`WHERE t.token_hash = '${input.tokenHash}'`)
  })

  it('writes the user, the post on the root, the link and the audit entry as the brief says', () => {
    const [, structure, fonction, user, token, poste, log] = bootstrapStatements(input)
    expect(structure).toContain("SELECT 1, 'L''Équipe'")
    expect(structure).toContain("'/1/'")
    expect(fonction).toContain("SELECT 'Administrateur', 1")
    expect(user).toContain(
      "SELECT 'o''neil@example.org', 'D''Artagnan''); DROP TABLE utilisateur; --', 'Portail', 'o''neil@example.org', NULL, 1, 0, 1, 'https://portail.example.org',\n    'INVITED', '2026-03-02T10:00:00.000Z'",
    )
    expect(token).toContain(`'INVITATION', '2026-03-02T10:00:00.000Z'`)
    expect(poste).toContain("'2026-03-01', '2036-03-01'")
    expect(log).toContain("'ADMINISTRATION', 'ADMIN_BOOTSTRAP', 'o''neil@example.org'")
    expect(bootstrapStatements({ ...input, structure: null })[1]).toContain("SELECT 1, 'Groupe'")
    expect(sqlFile(['SELECT 1', 'SELECT 2'])).toBe('SELECT 1;\n\nSELECT 2;\n')
  })
})

describe('admin:bootstrap token and dates', () => {
  it('makes a 256-bit base64url token and keeps the SHA-256 the API looks up', async () => {
    const { token, tokenHash } = newToken()
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(tokenHash).toBe(await sha256Hex(token))
    expect(tokenHashOf(token)).toBe(tokenHash)
    expect(newToken().token).not.toBe(token)
    expect(setPasswordLink('https://portail.example.org', token)).toBe(
      `https://portail.example.org/renewPassword/${token}`,
    )
  })

  it('counts the link 24 hours on and the post ten years from today in Paris', () => {
    expect(bootstrapDates(new Date('2026-12-31T23:30:00Z'))).toEqual({
      at: '2026-12-31T23:30:00.000Z',
      expiresAt: '2027-01-01T23:30:00.000Z',
      today: '2027-01-01',
      until: '2037-01-01',
    })
    expect(addYears('2028-02-29', 10)).toBe('2038-02-28')
    expect(addYears('2028-02-29', 4)).toBe('2032-02-29')
    expect(addYears('2026-06-15', 10)).toBe('2036-06-15')
  })
})
