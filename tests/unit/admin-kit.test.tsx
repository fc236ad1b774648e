// What the admin UI kit renders on the server, i.e. what a browser without JavaScript gets: real
// links and forms carrying the list's state in the URL.
import { createInstance } from 'i18next'
import type { ReactElement } from 'react'
import { renderToString } from 'react-dom/server'
import { I18nextProvider, initReactI18next } from 'react-i18next'
import { createStaticHandler, createStaticRouter, StaticRouterProvider } from 'react-router-dom/server'
import { beforeAll, describe, expect, it } from 'vitest'
import { ConfirmDialog, ConfirmPanel } from '../../app/components/confirm-dialog'
import { DataTable, type DataTableColumn } from '../../app/components/data-table'
import { DateRangeInput } from '../../app/components/date-range-input'
import { EmptyState } from '../../app/components/empty-state'
import { Pagination } from '../../app/components/pagination'
import { SearchForm } from '../../app/components/search-form'
import { filterOptions, SearchSelect } from '../../app/components/search-select'
import { Switch } from '../../app/components/ui/switch'
import { i18nConfig } from '../../app/lib/i18n'
import { resources } from '../../app/lib/i18n.server'

const i18n = createInstance()
beforeAll(async () => {
  await i18n.use(initReactI18next).init({ ...i18nConfig, lng: 'fr', resources })
})

/** Server-renders `element` as the page at `url`, inside a data router as Remix does. */
async function render(element: ReactElement, url = 'http://localhost/liste') {
  const handler = createStaticHandler([{ path: '/liste', element }])
  const context = await handler.query(new Request(url))
  if (context instanceof Response) throw context
  const router = createStaticRouter(handler.dataRoutes, context)
  return renderToString(
    <I18nextProvider i18n={i18n}>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </I18nextProvider>,
  )
}

/**
 * The attributes of every `tag` element, names lower-cased as HTML reads them (React writes
 * `inputMode`) and entities decoded: enough for the markup React writes.
 */
function elements(html: string, tag: string): Record<string, string>[] {
  return [...html.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'g'))].map(([, attributes]) =>
    Object.fromEntries(
      [...(attributes ?? '').matchAll(/([\w:-]+)(?:="([^"]*)")?/g)].map(([, name, value]) => [
        name?.toLowerCase(),
        (value ?? '').replaceAll('&amp;', '&').replaceAll('&quot;', '"'),
      ]),
    ),
  )
}

type Row = { id: number; nom: string; date: string }
const columns: DataTableColumn<Row>[] = [
  { id: 'nom', header: 'Nom', sort: 'nom', cell: (row) => row.nom },
  { id: 'date', header: 'Date', sort: 'date', cell: (row) => row.date },
  { id: 'note', header: 'Note', cell: () => '—' },
]
const rows: Row[] = [{ id: 1, nom: 'Dupont', date: '01/02/2026' }]

describe('DataTable', () => {
  it('links each sortable header to the list sorted by it, keeping the search and leaving the page', async () => {
    const html = await render(
      <DataTable aria-label="Liste" columns={columns} rows={rows} rowKey={(row) => row.id} />,
      'http://localhost/liste?q=du&tri=nom&page=3',
    )
    expect(elements(html, 'a').map((a) => a.href)).toEqual(['/liste?q=du&tri=-nom', '/liste?q=du&tri=date'])
    expect(elements(html, 'th').map((th) => th['aria-sort'])).toEqual(['ascending', undefined, undefined])
    expect(elements(html, 'th').every((th) => th.scope === 'col')).toBe(true)
    expect(html).toContain('trier par ordre décroissant')
    expect(html).toContain('Dupont')
  })

  it('shows the default sort, and the empty state instead of an empty table', async () => {
    const sorted = await render(
      <DataTable columns={columns} rows={rows} rowKey={(row) => row.id} defaultSort="-date" />,
      'http://localhost/liste',
    )
    expect(elements(sorted, 'th').map((th) => th['aria-sort'])).toEqual([undefined, 'descending', undefined])
    expect(elements(sorted, 'a').map((a) => a.href)).toEqual(['/liste?tri=nom', '/liste?tri=date'])

    const empty = await render(
      <DataTable columns={columns} rows={[]} rowKey={(row) => row.id} empty={<EmptyState title="Aucune ligne" />} />,
    )
    expect(empty).not.toContain('<table')
    expect(empty).toContain('Aucune ligne')
  })
})

describe('Pagination', () => {
  it('shows 5 pages around the current one, with first/previous/next/last keeping the other params', async () => {
    const html = await render(<Pagination page={6} total={95} />, 'http://localhost/liste?q=du&page=6')
    expect(elements(html, 'nav')[0]?.['aria-label']).toBe('Pagination')
    const links = elements(html, 'a')
    expect(links.map((a) => a.href)).toEqual([
      '/liste?q=du',
      '/liste?q=du&page=5',
      '/liste?q=du&page=4',
      '/liste?q=du&page=5',
      '/liste?q=du&page=6',
      '/liste?q=du&page=7',
      '/liste?q=du&page=8',
      '/liste?q=du&page=7',
      '/liste?q=du&page=10',
    ])
    expect(links.filter((a) => a['aria-current'] === 'page').map((a) => a['aria-label'])).toEqual(['Page 6'])
  })

  it('disables the steps that lead nowhere, and renders nothing for a single page', async () => {
    const first = elements(await render(<Pagination page={1} total={25} />), 'a')
    expect(first.slice(0, 2).map((a) => [a.href, a['aria-disabled']])).toEqual([
      [undefined, 'true'],
      [undefined, 'true'],
    ])
    expect(first.slice(2, 5).map((a) => a.href)).toEqual(['/liste', '/liste?page=2', '/liste?page=3'])
    expect(await render(<Pagination page={1} total={10} />)).toBe('')
    expect(await render(<Pagination page={1} total={0} />)).toBe('')
  })
})

describe('SearchForm', () => {
  it('is a GET search form that keeps the other params, except the page', async () => {
    const html = await render(
      <SearchForm label="Rechercher une structure" />,
      'http://localhost/liste?tri=-nom&q=du&page=4',
    )
    expect(elements(html, 'form')[0]).toMatchObject({ method: 'get', role: 'search' })
    const inputs = elements(html, 'input')
    expect(inputs.filter((input) => input.type === 'hidden').map((input) => [input.name, input.value])).toEqual([
      ['tri', '-nom'],
    ])
    expect(inputs.find((input) => input.type === 'search')).toMatchObject({ name: 'q', value: 'du' })
    expect(html).toContain('Rechercher')
  })
})

describe('ConfirmDialog and ConfirmPanel', () => {
  const confirmation = {
    title: 'Supprimer la structure ?',
    description: 'Cette action est définitive.',
    confirmLabel: 'Supprimer',
    fields: { intent: 'supprimer', id: '3' },
  }

  it('is a plain link to the confirmation page before JavaScript runs', async () => {
    const html = await render(
      <ConfirmDialog {...confirmation} fallbackHref="?confirmer=supprimer&id=3">
        Supprimer
      </ConfirmDialog>,
    )
    expect(elements(html, 'a')).toEqual([expect.objectContaining({ href: '?confirmer=supprimer&id=3' })])
    expect(elements(html, 'a')[0]?.role).toBeUndefined()
    expect(html).not.toContain('Cette action est définitive.')
  })

  it('confirms without JavaScript with a POST form carrying the hidden fields, and a way back', async () => {
    const html = await render(
      <ConfirmPanel {...confirmation} cancelHref="?q=du" />,
      'http://localhost/liste?q=du&confirmer=supprimer&id=3',
    )
    expect(elements(html, 'form')[0]?.method).toBe('post')
    expect(elements(html, 'input').map((input) => [input.type, input.name, input.value])).toEqual([
      ['hidden', 'intent', 'supprimer'],
      ['hidden', 'id', '3'],
    ])
    expect(elements(html, 'a').map((a) => a.href)).toEqual(['/liste?q=du'])
    expect(html).toContain('Annuler')
    expect(html).toContain('<h2')
  })
})

describe('form controls without JavaScript', () => {
  it('SearchSelect is a native select with every option and an empty choice', async () => {
    const options = [
      { value: '1', label: 'École Nord' },
      { value: '2', label: 'Entrepôt Sud' },
    ]
    const html = await render(
      <SearchSelect id="structure" name="structureId" label="Structure" options={options} defaultValue="2" />,
    )
    expect(elements(html, 'select')[0]).toMatchObject({ id: 'structure', name: 'structureId' })
    expect(elements(html, 'option').map((option) => [option.value, 'selected' in option])).toEqual([
      ['', false],
      ['1', false],
      ['2', true],
    ])
    expect(elements(html, 'label')[0]?.for).toBe('structure')
  })

  it('SearchSelect filters ignoring case and accents', () => {
    const options = [
      { value: '1', label: 'École Nord' },
      { value: '2', label: 'Entrepôt Sud' },
    ]
    expect(filterOptions(options, 'ecole').map((option) => option.value)).toEqual(['1'])
    expect(filterOptions(options, 'POT').map((option) => option.value)).toEqual(['2'])
    expect(filterOptions(options, '  ')).toEqual(options)
  })

  it('Switch is a native checkbox announced as a switch', async () => {
    const html = await render(<Switch id="actif" name="actif" defaultChecked />)
    expect(elements(html, 'input')[0]).toMatchObject({ type: 'checkbox', role: 'switch', name: 'actif' })
    expect('checked' in (elements(html, 'input')[0] ?? {})).toBe(true)
  })

  it('DateRangeInput asks for dd/mm/yyyy in each labelled field and ties errors to their field', async () => {
    const html = await render(
      <DateRangeInput
        legend="Période"
        start={{ name: 'dateDebut', label: 'Du', id: 'debut' }}
        end={{ name: 'dateFin', label: 'Au', id: 'fin', errors: ['Date invalide'] }}
      />,
    )
    const [start, end] = elements(html, 'input')
    expect(start).toMatchObject({
      name: 'dateDebut',
      inputmode: 'numeric',
      pattern: String.raw`\d{2}/\d{2}/\d{4}`,
      placeholder: 'jj/mm/aaaa',
      'aria-describedby': 'debut-hint',
    })
    expect(start?.['aria-invalid']).toBeUndefined()
    expect(end).toMatchObject({ 'aria-invalid': 'true', 'aria-describedby': 'fin-hint fin-error' })
    expect(html).toContain('<legend')
    expect(html).toContain('Date invalide')
  })
})
