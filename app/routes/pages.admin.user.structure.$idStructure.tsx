import { getFormProps, useForm } from '@conform-to/react'
import { getZodConstraint, parseWithZod } from '@conform-to/zod/v4'
import { type ActionFunctionArgs, data, type LoaderFunctionArgs } from '@remix-run/cloudflare'
import { Form, Link, useLoaderData, useLocation, useNavigate } from '@remix-run/react'
import { Plus, UserPlus, Users } from 'lucide-react'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { DataTable, type DataTableColumn } from '~/components/data-table'
import { DateRangeInput } from '~/components/date-range-input'
import { EmptyState } from '~/components/empty-state'
import { FormError, formProblem } from '~/components/form-error'
import { Pagination } from '~/components/pagination'
import { SearchForm } from '~/components/search-form'
import { SearchSelect } from '~/components/search-select'
import { ChoiceField } from '~/components/select-field'
import { Button, buttonVariants } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader } from '~/components/ui/card'
import { Dialog, DialogContent, DialogDescription, DialogTitle } from '~/components/ui/dialog'
import { Input } from '~/components/ui/input'
import { Label } from '~/components/ui/label'
import { translateError } from '~/lib/api-errors'
import { adminRead, requireAdmin } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { FOCUS_FIELD } from '~/lib/focus'
import { useFormReply, usePendingIntent } from '~/lib/form'
import { focusFragment, formFailure, readForm } from '~/lib/form.server'
import { useHydrated, useTypedBeforeHydration } from '~/lib/hydrated'
import { DEFAULT_PAGE_SIZE, readPage } from '~/lib/pagination'
import { structureId } from '~/lib/structure-form.server'
import { pageTitle, titleMeta } from '~/lib/title'
import { pathWithout, readSearch, urlWith } from '~/lib/url'
import {
  type Fonction,
  type PosteForm,
  posteFormSchema,
  type Structure,
  type StructureUsers,
} from '../../worker-api/contract/structure'
import type { User } from '../../worker-api/contract/user'

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
  const id = structureId(params.idStructure)
  const url = new URL(request.url).searchParams
  const q = readSearch(url)
  const recherche = readSearch(url, 'recherche')
  const page = readPage(url.get('page'))
  const query = { page, taille: DEFAULT_PAGE_SIZE, ...(q ? { q } : {}), ...(recherche ? { recherche } : {}) }
  const {
    auth,
    data: [structure, users],
    t,
  } = await adminRead(request, context, (auth) =>
    Promise.all([
      auth.expect(auth.api.rest.bd.structure[':id'].$get({ param: { id } })),
      auth.expect(auth.api.rest.bd.utilisateur.structure[':idStructure'].$get({ param: { idStructure: id }, query })),
    ]),
  )
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
  const id = structureId(params.idStructure)
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

/** The add-post link's id: focus comes back to it once a post is added (`FOCUS_FIELD`). */
const ADD = 'ajouter-poste'

export default function StructureUsersPage() {
  const { structure, users, page, q } = useLoaderData<typeof loader>()
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
            id={ADD}
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
      <AddPoste open={adding} structure={structure} users={users} />
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

/**
 * The add-post form where it opens: a modal dialog once the page is live (the URL's `ajouter=1` opens
 * it, closing it takes that away), a section of the page without JavaScript.
 */
function AddPoste({ open, structure, users }: { open: boolean; structure: Structure; users: StructureUsers }) {
  const { t } = useTranslation()
  const hydrated = useHydrated()
  const navigate = useNavigate()
  const { search } = useLocation()
  const heading = useRef<HTMLHeadingElement>(null)
  // What was typed in the section before the page was live is still there in the dialog.
  const [section, typed] = useTypedBeforeHydration<HTMLDivElement>()
  // The section opened by its link: focus goes to it, for keyboard and screen-reader users.
  useEffect(() => {
    if (open && !hydrated) heading.current?.focus()
  }, [open, hydrated])
  const title = t('structureUsers.addTitle', { nom: structure.nom })
  if (hydrated) {
    return (
      <Dialog
        open={open}
        onOpenChange={(next) => {
          if (!next)
            navigate(urlWith(search, { ajouter: null, recherche: null }), { replace: true, preventScrollReset: true })
        }}
      >
        <DialogContent closeLabel={t('structureUsers.close')} aria-describedby="ajout-intro">
          <div className="flex flex-col gap-1.5 pr-6">
            <DialogTitle className="text-xl font-semibold leading-none tracking-tight">{title}</DialogTitle>
            <DialogDescription id="ajout-intro" className="text-sm text-muted-foreground">
              {t('structureUsers.addIntro')}
            </DialogDescription>
          </div>
          <AddPosteForm users={users} typed={typed} />
        </DialogContent>
      </Dialog>
    )
  }
  if (!open) return null
  return (
    <Card id="ajout" className="border-primary/40">
      <CardHeader>
        <h2 ref={heading} tabIndex={-1} className="text-xl font-semibold leading-none tracking-tight outline-none">
          {title}
        </h2>
        <CardDescription>{t('structureUsers.addIntro')}</CardDescription>
      </CardHeader>
      <CardContent>
        <div ref={section}>
          <AddPosteForm users={users} typed={typed} />
        </div>
      </CardContent>
    </Card>
  )
}

/**
 * Spec §5 add-post: a user (autocomplete over the candidates the API found), a function (§4: none →
 * the error and a disabled select; one → chosen and disabled; several → to choose), a date range.
 */
function AddPosteForm({ users, typed }: { users: StructureUsers; typed: Record<string, string> }) {
  const { t } = useTranslation()
  const { constraint, recherche, structure } = useLoaderData<typeof loader>()
  const { search } = useLocation()
  const reply = useFormReply('poste')
  const pending = usePendingIntent('poste')
  const fonctions: Fonction[] = users.rechercheUtilisateur.fonctions
  const [form, fields] = useForm<PosteForm>({
    id: 'poste',
    lastResult: reply?.result,
    constraint,
    shouldValidate: 'onSubmit',
  })
  const translate = (errors: string[] | undefined) => errors?.map((error) => translateError(t, error))
  const candidates = users.rechercheUtilisateur.utilisateurs.map((user) => ({
    value: String(user.id),
    label: `${user.nom} ${user.prenom} (${user.mail})`,
  }))
  return (
    <div className="flex flex-col gap-4">
      {/* The candidates are searched by the API: a GET of this page that keeps the section open. */}
      <Form method="get" preventScrollReset className="flex flex-wrap items-end gap-2">
        {[...new URLSearchParams(search)]
          .filter(([name]) => name !== 'recherche')
          .map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
        <div className="flex min-w-0 flex-1 flex-col gap-1.5">
          <Label htmlFor="recherche">{t('structureUsers.findUser')}</Label>
          <Input id="recherche" name="recherche" type="search" defaultValue={typed.recherche ?? recherche} />
        </div>
        <Button type="submit" variant="outline">
          {t('structureUsers.findUserSubmit')}
        </Button>
      </Form>
      <Form method="post" {...getFormProps(form)} className="flex flex-col gap-4">
        <input type="hidden" name="intent" value="poste" />
        <input type="hidden" name={FOCUS_FIELD} value={ADD} />
        <FormError
          message={formProblem(t, reply, {
            utilisateur: t('structureUsers.user'),
            fonction: t('structureUsers.fonction'),
            dateDebut: t('structureUsers.dateDebut'),
            dateFin: t('structureUsers.dateFin'),
          })}
        />
        <SearchSelect
          id={fields.utilisateur.id}
          name={fields.utilisateur.name}
          label={t('structureUsers.user')}
          options={candidates}
          defaultValue={typed[fields.utilisateur.name]}
          placeholder={t('structureUsers.chooseUser')}
          emptyMessage={t('structureUsers.noCandidate')}
          required
          errors={translate(fields.utilisateur.errors)}
        />
        <ChoiceField
          id={fields.fonction.id}
          name={fields.fonction.name}
          label={t('structureUsers.fonction')}
          options={fonctions.map((fonction) => ({ value: String(fonction.id), label: fonction.libelle }))}
          defaultValue={typed[fields.fonction.name] ?? String(fields.fonction.initialValue ?? '')}
          placeholder={t('structureUsers.chooseFonction')}
          emptyMessage={t('structureUsers.noFonction')}
          emptyHint={
            <Link to={`/pages/admin/structure/detail/${structure.id}#fonctions`} className="underline">
              {t('structureUsers.addFonction')}
            </Link>
          }
          singleHint={t('structureUsers.oneFonction')}
          errors={translate(fields.fonction.errors)}
        />
        <DateRangeInput
          legend={t('structureUsers.period')}
          start={{
            name: fields.dateDebut.name,
            id: fields.dateDebut.id,
            label: t('structureUsers.dateDebut'),
            defaultValue: typed[fields.dateDebut.name] ?? String(fields.dateDebut.initialValue ?? ''),
            errors: translate(fields.dateDebut.errors),
            required: true,
          }}
          end={{
            name: fields.dateFin.name,
            id: fields.dateFin.id,
            label: t('structureUsers.dateFin'),
            defaultValue: typed[fields.dateFin.name] ?? String(fields.dateFin.initialValue ?? ''),
            errors: translate(fields.dateFin.errors),
            required: true,
          }}
        />
        <div className="flex flex-wrap gap-2">
          <Button type="submit" disabled={pending || fonctions.length === 0} aria-disabled={pending}>
            <Plus aria-hidden />
            {pending ? t('structureUsers.adding') : t('structureUsers.addSubmit')}
          </Button>
          <Link
            to={urlWith(search, { ajouter: null, recherche: null })}
            preventScrollReset
            className={buttonVariants({ variant: 'outline' })}
          >
            {t('structureUsers.close')}
          </Link>
        </div>
      </Form>
    </div>
  )
}
