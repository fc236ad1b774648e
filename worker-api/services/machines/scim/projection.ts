import { SCIM_PORTAL_USER } from '../../../contract/machines/scim'

/**
 * `attributes` and `excludedAttributes` (RFC 7644 §3.4.2.5): the attributes a resource is answered
 * with. `id` and `schemas` always come back; a sub-attribute (`name.givenName`) keeps its parent with
 * that part only. Names are compared whatever their case, with or without their schema's URN.
 */

type Resource = Record<string, unknown>

/** The names of a list (`a, name.b, urn:…:User:c`) as [attribute, sub-attribute?], lower case. */
function names(list: string, coreSchema: string): [string, string | undefined][] {
  return list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => {
      let path = name
      const lower = name.toLowerCase()
      const extension = SCIM_PORTAL_USER.toLowerCase()
      if (lower.startsWith(`${extension}:`)) return [extension, lower.slice(extension.length + 1)]
      if (lower === extension) return [extension, undefined]
      if (lower.startsWith(`${coreSchema.toLowerCase()}:`)) path = name.slice(coreSchema.length + 1)
      const [attribute, sub] = path.toLowerCase().split('.')
      return [attribute ?? '', sub]
    })
}

const ALWAYS = new Set(['id', 'schemas'])

function keyOf(resource: Resource, lower: string): string | undefined {
  return Object.keys(resource).find((key) => key.toLowerCase() === lower)
}

export function projected<R extends object>(
  resource: R,
  query: { attributes?: string | undefined; excludedAttributes?: string | undefined },
  coreSchema: string,
): Partial<R> {
  const source = resource as Resource
  if (query.attributes?.trim()) {
    const kept: Resource = {}
    for (const key of Object.keys(source)) if (ALWAYS.has(key)) kept[key] = source[key]
    for (const [attribute, sub] of names(query.attributes, coreSchema)) {
      const key = keyOf(source, attribute)
      if (key === undefined) continue
      const value = source[key]
      if (sub === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) {
        kept[key] = value
        continue
      }
      const subKey = keyOf(value as Resource, sub)
      if (subKey === undefined) continue
      kept[key] = { ...((kept[key] as Resource | undefined) ?? {}), [subKey]: (value as Resource)[subKey] }
    }
    return kept as Partial<R>
  }
  if (query.excludedAttributes?.trim()) {
    const kept: Resource = { ...source }
    for (const [attribute, sub] of names(query.excludedAttributes, coreSchema)) {
      const key = keyOf(kept, attribute)
      if (key === undefined || ALWAYS.has(key)) continue
      const value = kept[key]
      if (sub === undefined || typeof value !== 'object' || value === null || Array.isArray(value)) {
        delete kept[key]
        continue
      }
      const rest = { ...(value as Resource) }
      const subKey = keyOf(rest, sub)
      if (subKey !== undefined) delete rest[subKey]
      kept[key] = rest
    }
    return kept as Partial<R>
  }
  return resource
}
