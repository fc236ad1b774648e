import { getFormProps, useForm } from '@conform-to/react'
import type { getZodConstraint } from '@conform-to/zod/v4'
import { Form, useActionData, useLocation, useSubmit } from '@remix-run/react'
import { CalendarClock, Mail, Save, Trash2 } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { anchorId, FOCUS_FIELD, neighbourAnchor } from '~/lib/focus'
import { type FormReply, useErrorsFollowInput, useFormReply, usePendingIntent } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import { urlWith } from '~/lib/url'
import type { ApplicationSummary } from '../../worker-api/contract/access'
import type { Poste, ProfileInput, User } from '../../worker-api/contract/user'
import { AppIcon } from './app-icon'
import { ConfirmDialog, ConfirmPanel } from './confirm-dialog'
import { FormError, formProblem } from './form-error'
import { PostesTable } from './postes-table'
import { ProfileFields } from './profile-fields'
import { Alert } from './ui/alert'
import { Button } from './ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from './ui/card'
import { Label } from './ui/label'
import { Switch } from './ui/switch'

type Props = {
  user: User
  self: boolean
  applications: ApplicationSummary[]
  upcoming: { application: ApplicationSummary; dateDebut: string }[]
  constraint: ReturnType<typeof getZodConstraint>
}

/** The ids the page's forms bring focus back to, without JavaScript (`FOCUS_FIELD`). */
const SAVE_PROFILE = 'enregistrer-profil'
const APPLY_FLAGS = 'appliquer-etats'
const INVITE = 'inviter'
/** The prefix of the post rows' ids (`poste-3`). */
const POSTE_ROW = 'poste'

const dateTime = (epoch: number, language: string) =>
  new Intl.DateTimeFormat(language === 'en' ? 'en-GB' : 'fr-FR', {
    dateStyle: 'short',
    timeStyle: 'short',
    timeZone: 'Europe/Paris',
  }).format(epoch)

/**
 * A user's profile as an administrator sees it (spec §2, §6): the own-profile screen's identity and
 * posts, plus the active and admin switches, post deletion and a new invitation — all enabled only
 * when the server's `modification` flag says the viewer may manage this user — and what their posts
 * grant: the applications they may launch today and those a future post will open.
 */
export function AdminProfile({ user, self, applications, upcoming, constraint }: Props) {
  const { t } = useTranslation()
  // The profile form shows its own failures; the other forms' show here.
  const reply = useActionData() as FormReply | undefined
  const failure = reply && reply.intent !== 'profile' ? reply.error : null
  const editable = user.modification
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
      <IdentityForm user={user} editable={editable} constraint={constraint} />
      <AccountCard user={user} editable={editable} />
      <PostesCard user={user} editable={editable} />
      <RightsCard applications={applications} upcoming={upcoming} />
    </div>
  )
}

function IdentityForm({ user, editable, constraint }: Pick<Props, 'user' | 'constraint'> & { editable: boolean }) {
  const { t } = useTranslation()
  const reply = useFormReply('profile')
  const pending = usePendingIntent('profile')
  const [form, fields] = useForm<ProfileInput>({
    id: 'profile',
    lastResult: reply?.result,
    defaultValue: { nom: user.nom, prenom: user.prenom, mail: user.mail },
    constraint,
    shouldValidate: 'onSubmit',
  })
  const shown = useErrorsFollowInput(reply)
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('adminProfile.identity')}</CardTitle>
      </CardHeader>
      <CardContent>
        <Form method="post" {...getFormProps(form)} className="grid gap-4 sm:grid-cols-2" onInput={shown.onInput}>
          <input type="hidden" name="intent" value="profile" />
          <input type="hidden" name={FOCUS_FIELD} value={SAVE_PROFILE} />
          <FormError
            message={formProblem(t, reply, {
              nom: t('profile.nom'),
              prenom: t('profile.prenom'),
              mail: t('profile.mail'),
            })}
            className="sm:col-span-2"
          />
          {/* Spec §6: the fields are disabled unless modification is true. */}
          <fieldset disabled={!editable} className="contents">
            <ProfileFields fields={fields} login={user.login} own={false} current={shown.current} />
            {editable ? (
              <div className="sm:col-span-2">
                <Button id={SAVE_PROFILE} type="submit" disabled={pending} aria-disabled={pending}>
                  <Save aria-hidden />
                  {pending ? t('profile.saving') : t('profile.save')}
                </Button>
              </div>
            ) : null}
          </fieldset>
        </Form>
      </CardContent>
    </Card>
  )
}

/**
 * The active and admin switches (spec §4: the active one is not for administrators) and the
 * invitation. With JavaScript a switch applies as it is flipped; without, the form's button does.
 */
function AccountCard({ user, editable }: { user: User; editable: boolean }) {
  const { t, i18n } = useTranslation()
  const hydrated = useHydrated()
  const submit = useSubmit()
  const pending = usePendingIntent('flags')
  const inviting = usePendingIntent('invitation')
  return (
    <Card>
      <CardHeader>
        <CardTitle>{t('adminProfile.account')}</CardTitle>
        <CardDescription>{t('adminProfile.accountIntro')}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-6">
        <Form
          method="post"
          preventScrollReset
          className="flex flex-col gap-4"
          onChange={(event) => submit(event.currentTarget, { preventScrollReset: true, replace: true })}
        >
          <input type="hidden" name="intent" value="flags" />
          <input type="hidden" name={FOCUS_FIELD} value={APPLY_FLAGS} />
          <input type="hidden" name="wasAdmin" value={String(user.admin)} />
          {user.admin ? null : <input type="hidden" name="wasActif" value={String(user.actif)} />}
          <div className="flex items-start gap-3">
            <Switch
              id="switch-actif"
              name="actif"
              // Keyed by the value, so that a refused change shows the state the server kept.
              key={`actif-${user.actif}`}
              defaultChecked={user.actif}
              disabled={!editable || user.admin || pending}
              aria-describedby="switch-actif-hint"
            />
            <div className="flex flex-col">
              <Label htmlFor="switch-actif">{t('adminProfile.actif')}</Label>
              <p id="switch-actif-hint" className="text-sm text-muted-foreground">
                {t(user.admin ? 'adminProfile.actifAdmin' : 'adminProfile.actifHint')}
              </p>
            </div>
          </div>
          <div className="flex items-start gap-3">
            <Switch
              id="switch-admin"
              name="admin"
              key={`admin-${user.admin}`}
              defaultChecked={user.admin}
              disabled={!editable || pending}
              aria-describedby="switch-admin-hint"
            />
            <div className="flex flex-col">
              <Label htmlFor="switch-admin">{t('adminProfile.admin')}</Label>
              <p id="switch-admin-hint" className="text-sm text-muted-foreground">
                {t('adminProfile.adminHint')}
              </p>
            </div>
          </div>
          {editable && !hydrated ? (
            <div>
              <Button id={APPLY_FLAGS} type="submit" variant="outline">
                <Save aria-hidden />
                {t('adminProfile.applyFlags')}
              </Button>
            </div>
          ) : null}
          {pending ? (
            <p role="status" className="text-sm text-muted-foreground">
              {t('profile.saving')}
            </p>
          ) : null}
        </Form>
        {user.tokenRegister !== null ? (
          <div className="flex flex-col gap-2 rounded-md border border-dashed p-3 text-sm">
            <p className="flex items-start gap-2">
              <CalendarClock aria-hidden className="mt-0.5 size-4 shrink-0" />
              {user.tokenRegister > Date.now()
                ? t('adminProfile.invitationPending', { date: dateTime(user.tokenRegister, i18n.language) })
                : t('adminProfile.invitationExpired', { date: dateTime(user.tokenRegister, i18n.language) })}
            </p>
            {editable && !user.supprime ? (
              <Form method="post" preventScrollReset>
                <input type="hidden" name="intent" value="invitation" />
                <input type="hidden" name={FOCUS_FIELD} value={INVITE} />
                <Button id={INVITE} type="submit" variant="outline" size="sm" disabled={inviting}>
                  <Mail aria-hidden />
                  {inviting ? t('adminProfile.inviting') : t('adminProfile.invite')}
                </Button>
              </Form>
            ) : null}
          </div>
        ) : null}
      </CardContent>
    </Card>
  )
}

function PostesCard({ user, editable }: { user: User; editable: boolean }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const params = new URLSearchParams(search)
  const label = (poste: Poste) => `${poste.fonction.libelle}, ${poste.structure.nom}`
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
            fallbackHref={urlWith(search, { confirmer: 'poste', id: String(poste.id) })}
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
            cancelHref={urlWith(search, { confirmer: null, id: null })}
            returnTo={anchorId('supprimer-poste', confirming.id)}
            title={t('adminProfile.posteDeleteTitle', { poste: label(confirming) })}
            description={t('adminProfile.posteDeleteConfirm')}
            confirmLabel={t('adminProfile.posteDelete')}
            pendingLabel={t('adminProfile.posteDeleting')}
            fields={fields(confirming)}
          />
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
