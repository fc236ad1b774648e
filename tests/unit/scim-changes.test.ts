import { describe, expect, it } from 'vitest'
import { ScimError } from '../../worker-api/services/machines/scim/errors'
import { patchChanges, resourceChanges } from '../../worker-api/services/machines/scim/user-changes'

/**
 * What a SCIM write asks, read from its body as provisioning clients write it (Microsoft Entra ID's
 * and Okta's forms of RFC 7644 §3.5.2), before anything reaches D1.
 */

const EXTENSION = 'urn:ietf:params:scim:schemas:extension:portail:2.0:User'
const patch = (...Operations: unknown[]) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
  Operations,
})

function refusal(run: () => unknown): { status: number; scimType?: string } {
  try {
    run()
  } catch (error) {
    if (error instanceof ScimError) return { status: error.status, scimType: error.scimType }
    throw error
  }
  throw new Error('accepted')
}

describe('PATCH as Entra ID sends it', () => {
  it('reads a capitalised op and active as the string "False"', () => {
    expect(patchChanges(patch({ op: 'Replace', path: 'active', value: 'False' }))).toEqual({ actif: false })
    expect(patchChanges(patch({ op: 'replace', path: 'active', value: 'True' }))).toEqual({ actif: true })
  })

  it('reads a path-less replace of several attributes, dotted or nested', () => {
    expect(
      patchChanges(
        patch({
          op: 'Replace',
          value: { active: false, 'name.familyName': 'Durand', name: { givenName: 'Léa' }, externalId: 'RH-1' },
        }),
      ),
    ).toEqual({ actif: false, nom: 'Durand', prenom: 'Léa', externalId: 'RH-1' })
  })

  it('reads the address by its filtered path and the names by theirs, the core prefix allowed', () => {
    expect(
      patchChanges(
        patch(
          { op: 'Add', path: 'emails[type eq "work"].value', value: 'lea@example.test' },
          { op: 'Replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:name.familyName', value: 'Martin' },
        ),
      ),
    ).toEqual({ mail: 'lea@example.test', nom: 'Martin' })
  })

  it('leaves aside what the portal does not keep', () => {
    expect(
      patchChanges(
        patch(
          { op: 'Add', path: 'title', value: 'Chef' },
          { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'X' },
        ),
      ),
    ).toEqual({})
  })

  it('adds posts to the current ones, or replaces them, or removes them all', () => {
    const poste = {
      structure: { value: '4' },
      fonction: { value: '6' },
      dateDebut: '2026-12-01',
      dateFin: '2027-11-30',
    }
    const wanted = { structure: 4, fonction: 6, dateDebut: '2026-12-01', dateFin: '2027-11-30' }
    expect(patchChanges(patch({ op: 'add', path: `${EXTENSION}:postes`, value: [poste] }))).toEqual({
      postes: { mode: 'add', list: [wanted] },
    })
    expect(patchChanges(patch({ op: 'replace', value: { [EXTENSION]: { postes: [poste] } } }))).toEqual({
      postes: { mode: 'set', list: [wanted] },
    })
    expect(patchChanges(patch({ op: 'remove', path: `${EXTENSION}:postes` }))).toEqual({
      postes: { mode: 'set', list: [] },
    })
  })

  it('refuses what cannot be: a required attribute removed, a path it cannot read, a bad value', () => {
    expect(refusal(() => patchChanges(patch({ op: 'remove', path: 'name.familyName' })))).toEqual({
      status: 400,
      scimType: 'mutability',
    })
    expect(refusal(() => patchChanges(patch({ op: 'replace', path: 'emails[type eq', value: 'x' })))).toEqual({
      status: 400,
      scimType: 'invalidPath',
    })
    expect(refusal(() => patchChanges(patch({ op: 'replace', path: 'active', value: 'peut-être' })))).toEqual({
      status: 400,
      scimType: 'invalidValue',
    })
    expect(refusal(() => patchChanges(patch({ op: 'move', path: 'active', value: true })))).toEqual({
      status: 400,
      scimType: 'invalidSyntax',
    })
    expect(refusal(() => patchChanges({ Operations: Array.from({ length: 51 }, () => ({ op: 'add' })) }))).toEqual({
      status: 400,
      scimType: 'tooMany',
    })
  })
})

describe('a resource (POST, PUT)', () => {
  it('takes the primary address, and an absent active as active and externalId as none', () => {
    expect(
      resourceChanges({
        userName: 'lea@example.test',
        name: { givenName: 'Léa', familyName: 'Martin' },
        emails: [
          { value: 'perso@example.test', type: 'home' },
          { value: 'lea@example.test', type: 'work', primary: true },
        ],
      }),
    ).toEqual({
      userName: 'lea@example.test',
      mail: 'lea@example.test',
      nom: 'Martin',
      prenom: 'Léa',
      actif: true,
      externalId: null,
    })
  })

  it('takes userName as the login, and as the address too only when emails is left out and it is one', () => {
    const name = { givenName: 'Léa', familyName: 'Martin' }
    const work = [{ value: 'lea.martin@portail.example', type: 'work', primary: true }]
    expect(resourceChanges({ userName: 'lea.martin@contoso.onmicrosoft.com', name, emails: work })).toMatchObject({
      userName: 'lea.martin@contoso.onmicrosoft.com',
      mail: 'lea.martin@portail.example',
    })
    expect(resourceChanges({ userName: ' lea@example.test ', name })).toMatchObject({
      userName: 'lea@example.test',
      mail: 'lea@example.test',
    })
    expect(resourceChanges({ userName: 'lea.martin', name })).not.toHaveProperty('mail')
    expect(patchChanges(patch({ op: 'replace', path: 'userName', value: 'lea@example.test' }))).toEqual({
      userName: 'lea@example.test',
    })
    for (const userName of [' ', 'l'.repeat(101), 'lea\tmartin']) {
      expect(
        refusal(() => resourceChanges({ userName, name })),
        userName,
      ).toMatchObject({ scimType: 'invalidValue' })
    }
  })

  it('requires userName and both names, and a post with a real date', () => {
    expect(refusal(() => resourceChanges({ name: { givenName: 'Léa', familyName: 'Martin' } }))).toMatchObject({
      scimType: 'invalidValue',
    })
    const poste = {
      structure: { value: '4' },
      fonction: { value: '6' },
      dateDebut: '2026-02-30',
      dateFin: '2027-01-01',
    }
    expect(
      refusal(() =>
        resourceChanges({
          userName: 'a@example.test',
          name: { givenName: 'Léa', familyName: 'Martin' },
          [EXTENSION]: { postes: [poste] },
        }),
      ),
    ).toMatchObject({ status: 400, scimType: 'invalidValue' })
  })
})
