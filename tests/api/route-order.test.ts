/**
 * Where one operation's request also matches another operation's path (`GET utilisateur/liste` is a
 * `GET utilisateur/{id}` to the router, which reads no schema), Hono answers with the one registered
 * first, so the order in which worker-api/app.ts mounts the routers decides. This pins the one rule:
 * a fixed segment wins over a parameter (the spec gave that path its own operation). The paths and
 * their parameters' schemas come from the OpenAPI document and the order from the mounted routes, so a
 * router added or moved later is checked too.
 */
import { describe, expect, it } from 'vitest'
import { app, call } from './helpers'
import { openApiDocument, type OpenApiSchema as Schema } from './openapi-document'

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch'])

/** A path parameter's schema, as a test of a fixed segment: could the parameter take that value? */
function accepts(schema: Schema | undefined, value: string) {
  if (!schema) return true
  if (schema.enum) return schema.enum.includes(value)
  if (schema.type === 'integer' || schema.type === 'number') return /^-?\d+$/.test(value)
  return schema.pattern ? new RegExp(schema.pattern).test(value) : true
}

type Template = { method: string; path: string; segments: string[]; schemas: Map<string, Schema | undefined> }

/** Whether a valid request of `own` (its parameters as their schemas allow) matches `other`'s path. */
function captures(other: Template, own: Template) {
  if (other.segments.length !== own.segments.length) return false
  return own.segments.every((segment, index) => {
    const theirs = other.segments[index] ?? ''
    if (theirs.startsWith('{')) return true
    if (!segment.startsWith('{')) return segment === theirs
    return accepts(own.schemas.get(segment.slice(1, -1)), theirs)
  })
}

/** Whether `a` is the more fixed of two overlapping paths: a fixed segment where `b` first has a parameter. */
function moreFixed(a: Template, b: Template) {
  const index = a.segments.findIndex((segment, at) => segment !== b.segments[at])
  return index >= 0 && !(a.segments[index] ?? '').startsWith('{')
}

describe('the mounting order of the routes', () => {
  it('puts a fixed path before a parameter that could take it', async () => {
    const document = await openApiDocument(await call('/openapi.json'))
    const templates: Template[] = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.has(method))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          segments: path.split('/'),
          schemas: new Map(
            (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => [p.name, p.schema] as const),
          ),
        })),
    )
    const mounted = app.routes.map((route) => `${route.method} ${route.path}`)
    const position = (template: Template) =>
      mounted.indexOf(`${template.method} ${template.path.replace(/\{([^}]+)\}/g, ':$1')}`)
    expect(templates.length).toBeGreaterThan(50)
    expect(templates.every((template) => position(template) >= 0)).toBe(true)

    const overlapping: string[] = []
    const misordered: string[] = []
    for (const own of templates) {
      for (const other of templates) {
        if (other === own || other.method !== own.method || !captures(other, own)) continue
        overlapping.push(`${own.method} ${own.path} / ${other.path}`)
        const [fixed, open] = moreFixed(own, other) ? [own, other] : [other, own]
        const taken = `${own.method} ${fixed.path} is taken by ${open.path}`
        if (position(open) < position(fixed) && !misordered.includes(taken)) misordered.push(taken)
      }
    }
    // The spec's paths do overlap (the user list and a user, the other sessions and one session…).
    expect(overlapping.length).toBeGreaterThan(0)
    expect(misordered).toEqual([])
  })
})
