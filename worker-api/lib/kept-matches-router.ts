import type { Result, Router } from 'hono/router'
import { TrieRouter } from 'hono/router/trie-router'

/** How many method-and-path matches the router keeps; past that, the oldest goes first. */
export const KEPT_MATCHES = 1000
/** The longest path whose match is kept. */
export const KEPT_PATH_LENGTH = 256

/**
 * The API's router: Hono's trie router, its latest matches kept. The spec's paths put a word and an id at one
 * level (`session/liste`, `session/{id}`), which Hono's RegExpRouter refuses, and the trie walks its routes on
 * each request: matching was a sixth of an API read's CPU. A caller's paths repeat (their own id, the page they
 * read), so that a kept match answers most requests. A match is only read by Hono, never changed.
 */
export class KeptMatchesRouter<T> implements Router<T> {
  name = 'KeptMatchesRouter'
  #trie = new TrieRouter<T>()
  #kept = new Map<string, Result<T>>()

  add(method: string, path: string, handler: T) {
    this.#trie.add(method, path, handler)
    this.#kept.clear()
  }

  match(method: string, path: string): Result<T> {
    // No API path is this long: one that is does not push the callers' paths out.
    if (path.length > KEPT_PATH_LENGTH) return this.#trie.match(method, path)
    const key = `${method} ${path}`
    const kept = this.#kept.get(key)
    if (kept) return kept
    const result = this.#trie.match(method, path)
    if (this.#kept.size >= KEPT_MATCHES) this.#kept.delete(this.#kept.keys().next().value as string)
    this.#kept.set(key, result)
    return result
  }

  /** How many matches are kept. */
  get size() {
    return this.#kept.size
  }
}
