import { env } from 'cloudflare:test'
import { beforeAll, describe, expect, it } from 'vitest'
import { backgroundContext } from '../../worker-api/lib/context'
import { IMPORT_KEPT_DAYS, purgeExpired } from '../../worker-api/services/maintenance'
import { REUSE_GRACE_SECONDS } from '../../worker-api/services/sign-in/auth'
import { createOrganisation, createUser, db, refreshWith, signIn } from './helpers'

beforeAll(createOrganisation)

const ago = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString()

describe('purgeExpired (hourly cron)', () => {
  it('deletes what has expired and keeps what may still be used', async () => {
    const user = await createUser()
    await signIn(user.login, user.password) // a live session, a used captcha
    await db()
      .insertInto('captcha_used')
      .values([
        { signature: 'old', expires_at: ago(1) },
        { signature: 'fresh', expires_at: ago(-1) },
      ])
      .execute()
    await db()
      .insertInto('refresh_token')
      .values({
        token_hash: 'dead-family',
        utilisateur_id: user.id,
        family_id: 'f-dead',
        kind: 'SESSION',
        application_id: null,
        created_at: ago(60),
        expires_at: ago(59),
        family_expires_at: ago(48),
        rotated_at: null,
        revoked_at: null,
      })
      .execute()
    await db()
      .insertInto('login_attempt')
      .values([
        { identifier: 'forgotten', failures: 3, last_failure_at: ago(13), locked_until: null },
        { identifier: 'recent', failures: 3, last_failure_at: ago(1), locked_until: null },
        { identifier: 'still-locked', failures: 9, last_failure_at: ago(13), locked_until: ago(-1) },
      ])
      .execute()
    await db()
      .insertInto('rate_limit')
      .values([
        { key: 'login:old', window_start: ago(2), count: 3 },
        { key: 'login:now', window_start: ago(0), count: 3 },
      ])
      .execute()

    const challenge = (hash: string, expires_at: string) => ({
      hash,
      purpose: 'PASSKEY_LOGIN' as const,
      utilisateur_id: null,
      identifier: null,
      webauthn: hash,
      created_at: ago(2),
      expires_at,
    })
    await db()
      .insertInto('mfa_challenge')
      .values([challenge('dead-challenge', ago(1)), challenge('live-challenge', ago(-0.05))])
      .execute()

    const day = (days: number) => ago(24 * days).slice(0, 10)
    await db()
      .insertInto('utilisateur_liste_total')
      .values([
        { cle: 'two days ago', jour: day(2), total: 1 },
        { cle: 'today', jour: day(0), total: 1 },
      ])
      .execute()
    // An import ended IMPORT_KEPT_DAYS ago goes with its errors, and a preview kept a day, and a file whose upload
    // stopped midway a day ago; a recent one, a running one, a younger preview and an upload under way stay.
    const job = (
      finished: string | null,
      fichier: string,
      etat = finished ? 'TERMINE' : 'EN_COURS',
      created = 24 * 40,
    ) => ({
      type: 'utilisateurs' as const,
      etat: etat as 'TERMINE' | 'EN_COURS' | 'APERCU' | 'RECEPTION',
      auteur_id: 1,
      fichier,
      domaine: 'http://localhost:8787',
      origine: 'http://localhost:8787',
      created_at: ago(created),
      updated_at: ago(0),
      finished_at: finished,
    })
    const [old] = await db()
      .insertInto('import')
      .values([
        job(ago(24 * IMPORT_KEPT_DAYS + 1), 'old.csv'),
        job(ago(24 * IMPORT_KEPT_DAYS - 1), 'recent.csv'),
        job(null, 'running.csv'),
        job(null, 'preview-old.csv', 'APERCU', 25),
        job(null, 'preview-young.csv', 'APERCU', 23),
        job(null, 'upload-cut.csv', 'RECEPTION', 25),
        job(null, 'upload-going.csv', 'RECEPTION', 0),
      ])
      .returning('id')
      .execute()
    await db()
      .insertInto('import_erreur')
      .values({ import_id: old?.id ?? 0, ligne: 2, colonne: 'mail', code: 'MAIL', valeurs: null })
      .execute()
    await db()
      .insertInto('import_changement')
      .values({ import_id: old?.id ?? 0, ligne: 2, login: 'agent', valeurs: '{"admin":true}' })
      .execute()
    const deleted = await purgeExpired(backgroundContext(env))
    const imports = await db().selectFrom('import').select('fichier').orderBy('fichier').execute()
    expect(imports.map((row) => row.fichier)).toEqual([
      'preview-young.csv',
      'recent.csv',
      'running.csv',
      'upload-going.csv',
    ])
    expect(await db().selectFrom('import_erreur').selectAll().execute()).toEqual([])
    expect(await db().selectFrom('import_changement').selectAll().execute()).toEqual([])
    expect(deleted).toMatchObject({
      captchas: 1,
      refreshTokens: 1,
      loginAttempts: 1,
      rateLimits: 1,
      mfaChallenges: 1,
      listTotals: 1,
    })
    const challenges = await db().selectFrom('mfa_challenge').select('hash').execute()
    expect(challenges.map((row) => row.hash)).toEqual(['live-challenge'])
    const totals = await db().selectFrom('utilisateur_liste_total').select('cle').execute()
    expect(totals.map((t) => t.cle)).toEqual(['today'])

    const signatures = (await db().selectFrom('captcha_used').select('signature').execute()).map((r) => r.signature)
    expect(signatures).toContain('fresh')
    expect(signatures).not.toContain('old')
    const families = (await db().selectFrom('refresh_token').select('family_id').execute()).map((r) => r.family_id)
    expect(families).not.toContain('f-dead')
    expect(families.length).toBeGreaterThan(0)
    const identifiers = (await db().selectFrom('login_attempt').select('identifier').execute()).map((r) => r.identifier)
    expect(identifiers.sort()).toEqual(['recent', 'still-locked'])
  })
})

describe('purgeExpired: the retry copy of a rotated refresh token', () => {
  it('is kept during the grace window and dropped after it', async () => {
    const user = await createUser()
    const { jwt } = await signIn(user.login, user.password)
    expect((await refreshWith(jwt.refreshToken)).status).toBe(200)
    const rotated = () =>
      db()
        .selectFrom('refresh_token')
        .select('successor')
        .where('utilisateur_id', '=', user.id)
        .where('rotated_at', 'is not', null)
        .executeTakeFirstOrThrow()
    await purgeExpired(backgroundContext(env))
    expect((await rotated()).successor).not.toBeNull()
    const { successors } = await purgeExpired(
      backgroundContext(env),
      new Date(Date.now() + (REUSE_GRACE_SECONDS + 1) * 1000),
    )
    expect(successors).toBe(1)
    expect((await rotated()).successor).toBeNull()
  })
})

describe('purgeExpired: the second factor', () => {
  it('drops expired challenges and day-old unconfirmed enrolments, and keeps the rest', async () => {
    const user = await createUser()
    const other = await createUser()
    const challenge = (hash: string, expires: string) => ({
      hash,
      purpose: 'LOGIN' as const,
      utilisateur_id: user.id,
      identifier: user.login,
      webauthn: null,
      created_at: ago(1),
      expires_at: expires,
    })
    await db()
      .insertInto('mfa_challenge')
      .values([challenge('expired', ago(0.01)), challenge('live', ago(-0.05))])
      .execute()
    await db()
      .insertInto('mfa_totp')
      .values([
        // Confirmed, with a pending replacement from two days ago: the replacement goes, the secret stays.
        {
          utilisateur_id: user.id,
          secret: 'ABCD',
          confirmed_at: ago(72),
          pending_secret: 'OLD',
          pending_created_at: ago(48),
        },
        {
          utilisateur_id: other.id,
          secret: null,
          confirmed_at: null,
          pending_secret: 'NEW',
          pending_created_at: ago(1),
        },
      ])
      .execute()
    const deleted = await purgeExpired(backgroundContext(env))
    expect(deleted).toMatchObject({ mfaChallenges: 1, pendingTotp: 1 })
    const hashes = (await db().selectFrom('mfa_challenge').select('hash').execute()).map((r) => r.hash)
    expect(hashes).toContain('live')
    expect(hashes).not.toContain('expired')
    const totp = await db()
      .selectFrom('mfa_totp')
      .select(['utilisateur_id', 'secret', 'pending_secret'])
      .orderBy('utilisateur_id')
      .execute()
    expect(totp).toEqual([
      { utilisateur_id: user.id, secret: 'ABCD', pending_secret: null },
      { utilisateur_id: other.id, secret: null, pending_secret: 'NEW' },
    ])
  })
})
