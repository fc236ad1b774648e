/**
 * A record's id in the page's address (`$id`, `$idUser`…): a positive integer, else the page is not found (404), as
 * the API answers for an id it does not know. The one way a route reads an id from its path.
 */
export function idParam(value: string | undefined): number {
  const id = Number(value)
  if (!Number.isSafeInteger(id) || id < 1) throw new Response('NOT_FOUND', { status: 404 })
  return id
}
