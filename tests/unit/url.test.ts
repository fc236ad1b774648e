import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { anchorId, FOCUS_FIELD, neighbourOf } from '../../app/lib/focus'
import { focusFragment } from '../../app/lib/form.server'
import { pageCount, pageWindow, readPage } from '../../app/lib/pagination'
import { redirectPastLast } from '../../app/lib/pagination.server'
import { nextSort, readSort, sortDirection, urlWith } from '../../app/lib/url'

describe('urlWith (list state in the URL)', () => {
  it('sets, replaces and removes params, keeping the others in order', () => {
    expect(urlWith('?q=du&page=3', { tri: '-nom', page: null })).toBe('?q=du&tri=-nom')
    expect(urlWith('q=du&tri=nom', { tri: 'date' })).toBe('?q=du&tri=date')
    expect(urlWith('?a=1&a=2&b=3', { a: 'x' })).toBe('?a=x&b=3')
  })

  it('gives a bare "?" when nothing is left, and encodes what it writes', () => {
    expect(urlWith('?page=2', { page: null })).toBe('?')
    expect(urlWith('', {})).toBe('?')
    expect(urlWith('', { q: 'Île & co' })).toBe('?q=%C3%8Ele+%26+co')
  })

  it('never changes the URLSearchParams it is given', () => {
    const params = new URLSearchParams('q=du&page=4')
    expect(urlWith(params, { page: null, tri: 'nom' })).toBe('?q=du&tri=nom')
    expect(params.toString()).toBe('q=du&page=4')
  })
})

describe('sorting by a column (?tri=key, ?tri=-key)', () => {
  it('links ascending first, then flips', () => {
    expect(nextSort(null, 'nom')).toBe('nom')
    expect(nextSort('date', 'nom')).toBe('nom')
    expect(nextSort('nom', 'nom')).toBe('-nom')
    expect(nextSort('-nom', 'nom')).toBe('nom')
  })

  it('says how a column is sorted now', () => {
    expect(sortDirection('nom', 'nom')).toBe('ascending')
    expect(sortDirection('-nom', 'nom')).toBe('descending')
    expect(sortDirection('-nomComplet', 'nom')).toBeUndefined()
    expect(sortDirection(null, 'nom')).toBeUndefined()
  })

  it('reads only the keys a list allows, else the fallback', () => {
    const keys = ['nom', 'date'] as const
    expect(readSort('nom', keys)).toEqual({ key: 'nom', descending: false })
    expect(readSort('-date', keys)).toEqual({ key: 'date', descending: true })
    expect(readSort('motDePasse', keys)).toBeNull()
    expect(readSort('--nom', keys, { key: 'date', descending: true })).toEqual({ key: 'date', descending: true })
    expect(readSort(null, keys, { key: 'nom', descending: false })).toEqual({ key: 'nom', descending: false })
  })
})

describe('pagination (10 per page, 5 pages shown)', () => {
  it.each([
    [1, 10, [1, 2, 3, 4, 5]],
    [3, 10, [1, 2, 3, 4, 5]],
    [4, 10, [2, 3, 4, 5, 6]],
    [6, 10, [4, 5, 6, 7, 8]],
    [9, 10, [6, 7, 8, 9, 10]],
    [10, 10, [6, 7, 8, 9, 10]],
    [2, 3, [1, 2, 3]],
    [1, 1, [1]],
    [0, 4, [1, 2, 3, 4]],
    [99, 7, [3, 4, 5, 6, 7]],
    [1, 0, []],
  ])('page %i of %i shows %j', (page, count, expected) => {
    expect(pageWindow(page, count)).toEqual(expected)
  })

  it('always shows min(shown, pageCount) consecutive pages that include the current one', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 9 }),
        (page, count, shown) => {
          const pages = pageWindow(page, count, shown)
          expect(pages).toHaveLength(Math.min(shown, count))
          expect(pages[0]).toBeGreaterThanOrEqual(1)
          expect(pages.at(-1)).toBeLessThanOrEqual(count)
          expect(pages).toContain(Math.min(page, count))
          expect(pages).toEqual(pages.map((_, index) => (pages[0] as number) + index))
        },
      ),
    )
  })

  it('counts pages and reads the page param defensively', () => {
    expect([pageCount(0), pageCount(10), pageCount(11), pageCount(95, 20)]).toEqual([0, 1, 2, 5])
    expect(['3', null, '', '0', '-2', '2.5', 'abc', '1e3', '9999999999'].map(readPage)).toEqual([
      3, 1, 1, 1, 1, 1, 1, 1, 1,
    ])
  })
})

describe('a page past the last of a list', () => {
  const url = new URL('https://portail.example.org/pages/admin/listeStructures?tri=nom&q=sud&page=9')
  const thrown = (run: () => void) => {
    try {
      run()
    } catch (response) {
      return response as Response
    }
    return null
  }

  it('goes on to the page that is now the last, its search and sort kept, the session headers with it', () => {
    const response = thrown(() => redirectPastLast(url, 9, 23, 0, { 'Set-Cookie': 'portail=1' }))
    expect(response?.status).toBe(302)
    expect(new URL(response?.headers.get('Location') ?? '', url).search).toBe('?tri=nom&q=sud&page=3')
    expect(response?.headers.get('Set-Cookie')).toBe('portail=1')
    // The last page being the first: no page param at all.
    const first = thrown(() => redirectPastLast(url, 9, 4, 0))
    expect(first?.headers.get('Location')).toBe('/pages/admin/listeStructures?tri=nom&q=sud')
  })

  it('leaves a page with rows, a page within the list and an empty list where they are', () => {
    expect(thrown(() => redirectPastLast(url, 3, 23, 3))).toBeNull()
    expect(thrown(() => redirectPastLast(url, 3, 30, 0))).toBeNull()
    expect(thrown(() => redirectPastLast(url, 9, 0, 0))).toBeNull()
  })
})

describe('focus after an action without JavaScript', () => {
  const form = (retour: string) => {
    const data = new FormData()
    data.set(FOCUS_FIELD, retour)
    return data
  }

  it('sends the redirect to the id the form named', () => {
    expect(focusFragment(form(anchorId('retablir', 7)))).toBe('#retablir-7')
  })

  it('ignores anything that is not such an id: nothing else rides on the redirect', () => {
    for (const hostile of ['', 'x" onfocus="alert(1)', '../login', 'a b', '#ligne-1', `a${'b'.repeat(64)}`]) {
      expect(focusFragment(form(hostile)), hostile).toBe('')
    }
    expect(focusFragment(new FormData())).toBe('')
  })

  it('names the row that takes a removed one’s place: the next, else the one before, none when alone', () => {
    expect(neighbourOf([1, 2, 3], 2)).toBe(3)
    expect(neighbourOf([1, 2, 3], 3)).toBe(2)
    expect(neighbourOf([1], 1)).toBeUndefined()
  })
})
