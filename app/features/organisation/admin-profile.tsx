import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, useActionData, useLocation, useNavigation, useSearchParams } from '@remix-run/react'
import { History, ShieldOff, Trash2 } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { AppIcon } from '~/components/app-icon'
import { ConfirmDialog, ConfirmPanel } from '~/components/confirm-dialog'
import { SubmitButton } from '~/components/submit-button'
import { Alert } from '~/components/ui/alert'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { LinkedProviders, UNLINK_PARAM, UnlinkPanel } from '~/features/federation/linked-providers'
import { SessionsList } from '~/features/sign-in/sessions-list'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import type { FormReply } from '~/lib/form'
import { urlWith } from '~/lib/url'
import type { ApplicationSummary } from '../../../worker-api/contract/catalogue/access'
import type { Lien } from '../../../worker-api/contract/federation/links'
import type { Poste, User } from '../../../worker-api/contract/organisation/user'
import type { PortalSession } from '../../../worker-api/contract/sign-in/sessions'
import { AccountCard } from './account-card'
import { IdentityForm } from './identity-form'
import { PostesTable } from './postes-table'
import type { StoppingAccounts } from './stopping-accounts'
import { StoppingAccountsNote } from './stopping-accounts-note'

type Props = {
  user: User
  self: boolean
  applications: ApplicationSummary[]
  upcoming: { application: ApplicationSummary; dateDebut: string }[]
  /** The user's open sessions, for an administrator who manages them; null otherwise. */
  sessions: PortalSession[] | null
  /** The user's links to partners' identity providers, for an administrator who manages them; null otherwise. */
  fournisseurs: Lien[] | null
  /** While a post's deletion is confirmed, the service accounts acting for the user (null otherwise). */
  stopping: StoppingAccounts | null
  constraint: ReturnType<typeof getZodConstraint>
}

/** The id the identity form brings focus back to, without JavaScript (`FOCUS_FIELD`). */
const SAVE_PROFILE = 'enregistrer-profil'
/** The prefix of the post rows' ids (`poste-3`). */
const POSTE_ROW = 'poste'
/** The post deletion's panel: the trigger of an administrator's last current post leads there, with JavaScript too. */
const POSTE_PANEL = 'confirmer-fin-poste'

/**
 * A user's profile as an administrator sees it (spec §2, §6): identity, posts, switches, the applications their posts
 * grant now and later, and, for a user the viewer manages, their sessions. Controls are enabled only when the server's
 * `modification` flag says the viewer may manage this user.
 */
export function AdminProfile({
  user,
  self,
  applications,
  upcoming,
  sessions,
  fournisseurs,
  stopping,
  constraint,
}: Props) {
  const { t } = useTranslation()
  // The profile form shows its own failures; the other forms' show here.
  const reply = useActionData() as FormReply | undefined
  const failure = reply && reply.intent !== 'profile' ? reply.error : null
  const editable = user.modification
  const [search] = useSearchParams()
  const pagePath = useLocation().pathname
  return (
    <div className="flex max-w-4xl flex-col gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight break-words">
          {user.prenom} {user.nom}
        </h1>
        <p className="text-muted-foreground break-all">{user.mail}</p>
        {user.mailEnAttente ? (
          <p className="text-muted-foreground text-sm break-all">
            {t('adminProfile.mailPending', { mail: user.mailEnAttente })}
          </p>
        ) : null}
      </div>
      {editable ? null : <Alert role="note">{t(self ? 'adminProfile.selfReadOnly' : 'adminProfile.readOnly')}</Alert>}
      {user.supprime ? (
        <Alert variant="destructive" role="note">
          {t('adminProfile.deletedNote')}
        </Alert>
      ) : null}
      {failure ? (
        <Alert variant="destructive" role="alert">
          {t(failure.key, failure.values)}
        </Alert>
      ) : null}
      {editable && fournisseurs ? (
        <UnlinkPanel links={fournisseurs} own={false} asked={search.get(UNLINK_PARAM)} pagePath={pagePath} />
      ) : null}
      <IdentityForm
        user={user}
        own={false}
        editable={editable}
        title={t('adminProfile.identity')}
        constraint={constraint}
        focusAfter={SAVE_PROFILE}
      />
      <AccountCard user={user} editable={editable} />
      <PostesCard user={user} editable={editable} stopping={stopping} />
      <RightsCard applications={applications} upcoming={upcoming} />
      <HistoryCard id={user.id} />
      {sessions ? (
        <SessionsList sessions={sessions} own={false} name={`${user.prenom} ${user.nom}`} editable={editable} />
      ) : null}
      {editable && fournisseurs && fournisseurs.length > 0 ? (
        <LinkedProviders links={fournisseurs} own={false} error={null} pagePath={pagePath} />
      ) : null}
      {editable && !self ? <SecondFactorCard name={`${user.prenom} ${user.nom}`} /> : null}
    </div>
  )
}

/**
 * The user's history: their recent entries (the history screen, filtered), and their full history, archive included,
 * in one click (a form: the search of the archive starts, the screen shows both).
 */
function HistoryCard({ id }: { id: number }) {
  const { t } = useTranslation()
  const navigation = useNavigation()
  const history = `/pages/admin/listeLogs?${new URLSearchParams({ utilisateur: String(id) }).toString()}`
  const starting = navigation.state === 'submitting' && navigation.formAction?.startsWith('/pages/admin/listeLogs')
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('nav.history')}</CardTitle>
        <CardDescription>{t('logs.archive.fullHistoryHint')}</CardDescription>
      </CardHeader>
      <CardContent>
        <Form method="post" action={history}>
          <SubmitButton icon={History} pending={Boolean(starting)} pendingLabel={t('logs.archive.starting')}>
            {t('logs.archive.fullHistory')}
          </SubmitButton>
        </Form>
      </CardContent>
    </Card>
  )
}

/**
 * The user's second factor reset (a lost phone, lost recovery codes), after a confirmation: they sign
 * in with their password alone again, and register a new one.
 */
function SecondFactorCard({ name }: { name: string }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const confirmation = {
    title: t('mfa.reset.title', { name }),
    description: t('mfa.reset.confirm'),
    confirmLabel: t('mfa.reset.action'),
    pendingLabel: t('mfa.reset.pending'),
    fields: { intent: 'mfa-reset', name },
  }
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('mfa.reset.cardTitle')}</CardTitle>
        <CardDescription>{t('mfa.reset.intro')}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {new URLSearchParams(search).get('confirmer') === 'mfa' ? (
          <ConfirmPanel
            cancelHref={urlWith(search, { confirmer: null })}
            returnTo="reinitialiser-mfa"
            {...confirmation}
          />
        ) : null}
        <div>
          <ConfirmDialog
            id="reinitialiser-mfa"
            fallbackHref={urlWith(search, { confirmer: 'mfa' })}
            triggerVariant="outline"
            {...confirmation}
          >
            <ShieldOff aria-hidden />
            {t('mfa.reset.action')}
          </ConfirmDialog>
        </div>
      </CardContent>
    </Card>
  )
}

function PostesCard({
  user,
  editable,
  stopping,
}: {
  user: User
  editable: boolean
  stopping: StoppingAccounts | null
}) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const params = new URLSearchParams(search)
  const label = (poste: Poste) => `${poste.fonction.libelle}, ${poste.structure.nom}`
  // An administrator's current post: ending it may stop service accounts acting for them (those of structures they
  // administer through it alone), which its panel, read from the server, names.
  const adminPost = (poste: Poste) => user.admin && user.postesEnCours.some((p) => p.id === poste.id)
  const confirming =
    params.get('confirmer') === 'poste'
      ? [...user.postesEnCours, ...user.postesFutur].find((p) => String(p.id) === params.get('id'))
      : undefined
  /** The delete's form; without JavaScript focus then goes to the post that takes its place in its list. */
  const fields = (poste: Poste) => ({
    intent: 'poste',
    id: String(poste.id),
    libelle: label(poste),
    [FOCUS_FIELD]: neighbourAnchor(
      user.postesEnCours.includes(poste) ? user.postesEnCours : user.postesFutur,
      poste,
      POSTE_ROW,
    ),
  })
  const actions = editable
    ? {
        header: t('adminProfile.posteActions'),
        cell: (poste: Poste) => (
          <ConfirmDialog
            id={anchorId('supprimer-poste', poste.id)}
            fallbackHref={`${urlWith(search, { confirmer: 'poste', id: String(poste.id) })}${adminPost(poste) ? `#${POSTE_PANEL}` : ''}`}
            onPage={adminPost(poste)}
            title={t('adminProfile.posteDeleteTitle', { poste: label(poste) })}
            description={t('adminProfile.posteDeleteConfirm')}
            confirmLabel={t('adminProfile.posteDelete')}
            pendingLabel={t('adminProfile.posteDeleting')}
            fields={fields(poste)}
            triggerVariant="ghost"
            triggerClassName="text-destructive"
          >
            <Trash2 aria-hidden />
            <span className="sr-only">{t('adminProfile.posteDeleteLabel', { poste: label(poste) })}</span>
          </ConfirmDialog>
        ),
      }
    : undefined
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('adminProfile.postes')}</CardTitle>
      </CardHeader>
      <CardContent className="flex flex-col gap-6">
        {confirming && editable ? (
          <ConfirmPanel
            id={POSTE_PANEL}
            className="scroll-mt-4"
            cancelHref={urlWith(search, { confirmer: null, id: null })}
            returnTo={anchorId('supprimer-poste', confirming.id)}
            title={t('adminProfile.posteDeleteTitle', { poste: label(confirming) })}
            description={t('adminProfile.posteDeleteConfirm')}
            confirmLabel={t('adminProfile.posteDelete')}
            pendingLabel={t('adminProfile.posteDeleting')}
            fields={fields(confirming)}
          >
            {adminPost(confirming) ? (
              <StoppingAccountsNote stopping={stopping} userId={user.id} name={`${user.prenom} ${user.nom}`} />
            ) : null}
          </ConfirmPanel>
        ) : null}
        <PostesTable
          caption={t('profile.postesEnCours')}
          postes={user.postesEnCours}
          actions={actions}
          rowAnchor={POSTE_ROW}
        />
        <PostesTable
          caption={t('profile.postesFutur')}
          postes={user.postesFutur}
          actions={actions}
          rowAnchor={POSTE_ROW}
        />
      </CardContent>
    </Card>
  )
}

/** What the user's posts grant, as the launcher derives it: today's applications, then future ones. */
function RightsCard({ applications, upcoming }: Pick<Props, 'applications' | 'upcoming'>) {
  const { t } = useTranslation()
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('adminProfile.rights')}</CardTitle>
        <CardDescription>{t('adminProfile.rightsIntro')}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        <section aria-labelledby="rights-today" className="flex flex-col gap-2">
          <h3 id="rights-today" className="text-sm font-medium">
            {t('adminProfile.rightsToday')}
          </h3>
          {applications.length === 0 ? (
            <p className="text-sm text-muted-foreground">{t('adminProfile.rightsNone')}</p>
          ) : (
            <ul className="flex flex-wrap gap-2">
              {applications.map((application) => (
                <li
                  key={application.id}
                  className="inline-flex items-center gap-2 rounded-md border bg-accent px-3 py-1.5 text-sm"
                >
                  <AppIcon name={application.icone} className="size-4 text-primary" />
                  {application.libelle}
                </li>
              ))}
            </ul>
          )}
        </section>
        {upcoming.length > 0 ? (
          <section aria-labelledby="rights-later" className="flex flex-col gap-2">
            <h3 id="rights-later" className="text-sm font-medium">
              {t('adminProfile.rightsLater')}
            </h3>
            <ul className="flex flex-wrap gap-2">
              {upcoming.map(({ application, dateDebut }) => (
                <li
                  key={application.id}
                  className="inline-flex items-center gap-2 rounded-md border border-dashed bg-muted/40 px-3 py-1.5 text-sm text-muted-foreground"
                >
                  <AppIcon name={application.icone} className="size-4" />
                  {t('adminProfile.rightsFrom', { name: application.libelle, date: dateDebut })}
                </li>
              ))}
            </ul>
          </section>
        ) : null}
      </CardContent>
    </Card>
  )
}
