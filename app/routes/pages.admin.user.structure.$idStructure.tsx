import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Link, useLoaderData, useLocation } from '@remix-run/react'
import { Plus, UserPlus, Users } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { EmptyState } from '~/components/empty-state'
import { Pagination } from '~/components/pagination'
import { SearchForm } from '~/components/search-form'
import { buttonVariants } from '~/components/ui/button'
import { ADD_POSTE, AddPoste } from '~/features/organisation/add-poste'
import { requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { useFormReply } from '~/lib/form'
import { focusFragment, formFailure, readForm } from '~/lib/form.server'
import { idParam } from '~/lib/id-param'
import { DEFAULT_PAGE_SIZE, readPage } from '~/lib/pagination'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout, readSearch, urlWith } from '~/lib/url'
import { posteFormSchema, type Structure } from '../../worker-api/contract/organisation/structure'
import type { User } from '../../worker-api/contract/organisation/user'

export const handle: BreadcrumbHandle = {
  breadcrumb: (data, t) => {
    const structure = (data as { structure?: Structure } | undefined)?.structure
    return [
      { label: t('nav.structures'), to: '/pages/admin/listeStructures' },
      ...(structure ? [{ label: structure.nom, to: `/pages/admin/structure/detail/${structure.id}` }] : []),
      { label: t('structureUsers.crumb') },
    ]
  },
}
export const meta = titleMeta

/**
 * Spec §2 admin/user/structure/{idStructure}: the structure's current and future users (searched and
 * paged by the API), and the add-post form for an existing user, whose candidates the API searches
 * (`recherche`). The form is a section of the page (`?ajouter=1`), reached by a plain link.
 */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const id = idParam(params.idStructure)
  const url = new URL(request.url).searchParams
  const q = readSearch(url)
  const recherche = readSearch(url, 'recherche')
  const page = readPage(url.get('page'))
  const query = { page, taille: DEFAULT_PAGE_SIZE, ...(q ? { q } : {}), ...(recherche ? { recherche } : {}) }
  const {
    auth,
    data: [structure, users],
    t,
  } = await requireAdmin(request, context, {
    read: (auth) =>
      Promise.all([
        auth.expect(auth.api.rest.bd.structure[':id'].$get({ param: { id } })),
        auth.expect(auth.api.rest.bd.utilisateur.structure[':idStructure'].$get({ param: { idStructure: id }, query })),
      ]),
  })
  return data(
    {
      structure,
      users,
      page,
      q,
      recherche,
      constraint: getZodConstraint(posteFormSchema),
      title: pageTitle(t, t('structureUsers.title', { nom: structure.nom })),
    },
    { headers: await auth.headers() },
  )
}

/** The add-post form: POST rest/bd/poste; the API's refusals on their fields or on the form. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  const auth = await requireAdmin(request, context)
  const id = idParam(params.idStructure)
  const form = await readForm(request)
  const submission = parseWithZod(form, { schema: posteFormSchema })
  if (submission.status !== 'success') return formFailure('poste', submission, { headers: await auth.headers() })
  const { utilisateur, fonction, dateDebut, dateFin } = submission.value
  const result = await auth.settle(
    auth.api.rest.bd.poste.$post({
      json: { structure: { id }, fonction: { id: fonction }, utilisateur: { id: utilisateur }, dateDebut, dateFin },
    }),
  )
  if (!result.ok) {
    return formFailure('poste', submission, {
      failure: result,
      fallback: 'errors.saveFailed',
      headers: await auth.headers(),
    })
  }
  return auth.redirectWithToast(`${pathWithout(request.url, ['ajouter', 'recherche'])}${focusFragment(form)}`, {
    type: 'success',
    key: 'structureUsers.added',
  })
}

export default function StructureUsersPage() {
  const { structure, users, page, q, recherche, constraint } = useLoaderData<typeof loader>()
  const { search } = useLocation()
  const { t } = useTranslation()
  const adding = new URLSearchParams(search).get('ajouter') === '1' || useFormReply('poste') !== undefined
  const total = Math.max(users.totalEnCours, users.totalFuturs)
  return (
    <div className="flex flex-col gap-6">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <h1 className="text-2xl font-semibold tracking-tight">{t('structureUsers.title', { nom: structure.nom })}</h1>
        <div className="flex flex-wrap gap-2">
          <Link
            id={ADD_POSTE}
            to={`${urlWith(search, { ajouter: '1' })}#ajout`}
            preventScrollReset
            className={buttonVariants({ variant: 'outline' })}
          >
            <Plus aria-hidden />
            {t('structureUsers.add')}
          </Link>
          <Link to={`/pages/admin/user/${structure.id}/new`} className={buttonVariants()}>
            <UserPlus aria-hidden />
            {t('structureUsers.createUser')}
          </Link>
        </div>
      </div>
      <AddPoste open={adding} structure={structure} users={users} recherche={recherche} constraint={constraint} />
      <SearchForm label={t('structureUsers.search')} />
      <UsersTable
        title={t('structureUsers.enCours')}
        users={users.utilisateursEnCours}
        structureId={structure.id}
        q={q}
      />
      <UsersTable
        title={t('structureUsers.futurs')}
        users={users.utilisateursFuturs}
        structureId={structure.id}
        q={q}
      />
      <Pagination page={page} total={total} pageSize={DEFAULT_PAGE_SIZE} />
    </div>
  )
}

function UsersTable({
  title,
  users,
  structureId,
  q,
}: {
  title: string
  users: User[]
  structureId: number
  q: string
}) {
  const { t } = useTranslation()
  const here = (user: User) =>
    [...user.postesEnCours, ...user.postesFutur].filter((poste) => poste.structure.id === structureId)
  const columns: DataTableColumn<User>[] = [
    {
      id: 'nom',
      header: t('structureUsers.nom'),
      cell: (user) => (
        <>
          <Link
            to={`/pages/admin/user/detail/${user.id}?structure=${structureId}`}
            className="font-medium text-primary underline-offset-4 hover:underline"
          >
            {user.nom}
          </Link>
          {/* Narrower, the first name and the mail ride under the name rather than squeeze the columns. */}
          <span className="block sm:hidden">{user.prenom}</span>
          <span className="block break-all text-muted-foreground lg:hidden">{user.mail}</span>
        </>
      ),
    },
    {
      id: 'prenom',
      header: t('structureUsers.prenom'),
      className: 'hidden sm:table-cell',
      cell: (user) => user.prenom,
    },
    {
      id: 'mail',
      header: t('structureUsers.mail'),
      className: 'hidden lg:table-cell break-all',
      cell: (user) => user.mail,
    },
    {
      id: 'postes',
      header: t('structureUsers.postes'),
      cell: (user) => (
        <ul className="flex flex-col gap-1">
          {/* Each day whole: the period wraps between them, never inside one. */}
          {here(user).map((poste) => (
            <li key={poste.id}>
              {poste.fonction.libelle}{' '}
              <span className="block tabular-nums text-muted-foreground lg:inline">
                <span className="whitespace-nowrap">{poste.dateDebut} –</span>{' '}
                <span className="whitespace-nowrap">{poste.dateFin}</span>
              </span>
            </li>
          ))}
        </ul>
      ),
    },
  ]
  return (
    <section aria-label={title} className="flex flex-col gap-2">
      <h2 className="text-lg font-semibold">{title}</h2>
      <div className="overflow-hidden rounded-lg border bg-card">
        <DataTable
          aria-label={title}
          columns={columns}
          rows={users}
          rowKey={(user) => user.id}
          empty={<EmptyState compact icon={Users} title={t('structureUsers.empty')} description={q || undefined} />}
        />
      </div>
    </section>
  )
}
