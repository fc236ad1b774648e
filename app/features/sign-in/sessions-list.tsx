import { useActionData, useLocation } from '@remix-run/react'
import { LogOut, MonitorSmartphone, X } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { ConfirmDialog, ConfirmPanel } from '~/components/confirm-dialog'
import { EmptyState } from '~/components/empty-state'
import { Alert } from '~/components/ui/alert'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { displayDateTime } from '~/lib/dates'
import { anchorId, FOCUS_FIELD, neighbourOf } from '~/lib/focus'
import type { FormReply } from '~/lib/form'
import { urlWith } from '~/lib/url'
import type { PortalSession } from '../../../worker-api/contract/sign-in/sessions'

/** The forms of the list of one's own sessions (sessions.server.ts): one session ended, or all the others. */
const OWN_SESSION_INTENTS = ['session', 'sessions-autres'] as const
/** The form of an administrator's "end every session" on a user's profile. */
const USER_SESSIONS_INTENT = 'sessions'

/** The id of the list's card, and the prefix of its rows' ids (`session-<id>`): where focus comes back. */
const LIST_ID = 'sessions'
const ROW = 'session'

type Props =
  | { sessions: PortalSession[]; own: true }
  /** An administrator's view of a user (`name`): no row's end, "end every session" when `editable`. */
  | { sessions: PortalSession[]; own: false; name: string; editable: boolean }

/**
 * A user's open sessions (DESIGN §3). On one's own profile each ends alone (the current one signs out) or all the
 * others at once; on an administrator's view all end at once and the user is told by mail. Every end asks first: an
 * alert dialog, or without JavaScript a panel at `?confirmer=…`.
 */
export function SessionsList(props: Props) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const { sessions, own } = props
  const params = new URLSearchParams(search)
  const reply = useActionData() as FormReply | undefined
  const failure = own && reply && (OWN_SESSION_INTENTS as readonly string[]).includes(reply.intent) ? reply.error : null
  const others = sessions.filter((session) => !session.courante)
  const confirming =
    own && params.get('confirmer') === 'session' ? sessions.find((s) => s.id === params.get('id')) : undefined
  const cancelHref = urlWith(search, { confirmer: null, id: null })
  const endOthers = {
    title: t('sessions.endOthersTitle'),
    description: t('sessions.endOthersConfirm'),
    confirmLabel: t('sessions.endOthers'),
    pendingLabel: t('sessions.ending'),
    fields: { intent: 'sessions-autres', [FOCUS_FIELD]: LIST_ID },
  }
  const endAll = own
    ? null
    : {
        title: t('sessions.endAllTitle', { name: props.name }),
        description: t('sessions.endAllConfirm', { name: props.name }),
        confirmLabel: t('sessions.endAll'),
        pendingLabel: t('sessions.ending'),
        fields: { intent: USER_SESSIONS_INTENT, name: props.name, [FOCUS_FIELD]: LIST_ID },
      }
  const confirmingAll = params.get('confirmer') === (own ? 'sessions-autres' : 'sessions')
  return (
    <Card id={LIST_ID}>
      <CardHeader>
        <CardTitle>{t(own ? 'sessions.title' : 'sessions.adminTitle')}</CardTitle>
        <CardDescription>{t(own ? 'sessions.intro' : 'sessions.adminIntro')}</CardDescription>
      </CardHeader>
      <CardContent className="flex flex-col gap-4">
        {failure ? (
          <Alert variant="destructive" role="alert">
            {t(failure.key, failure.values)}
          </Alert>
        ) : null}
        {confirming ? (
          <ConfirmPanel
            cancelHref={cancelHref}
            returnTo={anchorId('terminer', confirming.id)}
            {...endOne(t, confirming, sessions)}
          />
        ) : null}
        {confirmingAll && own && others.length > 0 ? (
          <ConfirmPanel cancelHref={urlWith(search, { confirmer: null })} returnTo="terminer-autres" {...endOthers} />
        ) : null}
        {confirmingAll && endAll && props.own === false && props.editable && sessions.length > 0 ? (
          <ConfirmPanel cancelHref={urlWith(search, { confirmer: null })} returnTo="terminer-toutes" {...endAll} />
        ) : null}
        {sessions.length === 0 ? (
          <EmptyState compact icon={MonitorSmartphone} title={t('sessions.none')} />
        ) : (
          <ul className="flex flex-col divide-y rounded-md border">
            {sessions.map((session) => (
              <SessionRow key={session.id} session={session} sessions={sessions} own={own} />
            ))}
          </ul>
        )}
        {own && others.length > 0 ? (
          <div>
            <ConfirmDialog
              id="terminer-autres"
              fallbackHref={urlWith(search, { confirmer: 'sessions-autres', id: null })}
              {...endOthers}
            >
              <LogOut aria-hidden />
              {t('sessions.endOthers')}
            </ConfirmDialog>
          </div>
        ) : null}
        {endAll && props.own === false && props.editable && sessions.length > 0 ? (
          <div>
            <ConfirmDialog
              id="terminer-toutes"
              fallbackHref={urlWith(search, { confirmer: 'sessions', id: null })}
              {...endAll}
            >
              <LogOut aria-hidden />
              {t('sessions.endAll')}
            </ConfirmDialog>
          </div>
        ) : null}
      </CardContent>
    </Card>
  )
}

type T = ReturnType<typeof useTranslation>['t']

/** What a confirmation asks and posts (confirm-dialog.tsx). */
type Ending = {
  title: string
  description: string
  confirmLabel: string
  pendingLabel: string
  action?: string
  fields: Record<string, string>
}

/** The kinds of device an approval may come from, as the sessions name them. */
const APPROVED_FROM = ['mobile', 'tablet', 'desktop'] as const

/**
 * How a session is named: its browser and version; a device's, by the name its approver gave it and what it was
 * approved from ("Terminal de quai 3, approuvé depuis votre téléphone").
 */
const browserOf = (t: T, session: PortalSession, own = true) => {
  if (session.appareil) {
    const kind = APPROVED_FROM.find((from) => from === session.appareil?.approuveDepuis) ?? 'other'
    const from = own ? t(`sessions.approvedFrom.${kind}`) : t(`sessions.approvedFromTheirs.${kind}`)
    return t('sessions.deviceApproved', { name: session.appareil.nom, from })
  }
  return session.navigateur
    ? [session.navigateur, session.versionNavigateur].filter(Boolean).join(' ')
    : t('sessions.unknownBrowser')
}

/**
 * The confirmation of one session's end: the current one is a sign-out (the portal's own, which ends
 * the browser's session too); any other is ended from the list, focus then going to the row that
 * takes its place.
 */
function endOne(t: T, session: PortalSession, sessions: PortalSession[]): Ending {
  const browser = browserOf(t, session)
  if (session.courante) {
    return {
      title: t('sessions.endCurrentTitle'),
      description: t('sessions.endCurrentConfirm'),
      confirmLabel: t('sessions.signOut'),
      pendingLabel: t('sessions.signingOut'),
      action: '/logout',
      fields: { intent: 'logout' },
    }
  }
  const neighbour = neighbourOf(sessions, session)
  return {
    title: t('sessions.endTitle', { browser }),
    description: t('sessions.endConfirm'),
    confirmLabel: t('sessions.end'),
    pendingLabel: t('sessions.ending'),
    fields: {
      intent: 'session',
      id: session.id,
      browser,
      [FOCUS_FIELD]: neighbour ? anchorId(ROW, neighbour.id) : LIST_ID,
    },
  }
}

function SessionRow({ session, sessions, own }: { session: PortalSession; sessions: PortalSession[]; own: boolean }) {
  const { t } = useTranslation()
  const { search } = useLocation()
  const browser = browserOf(t, session, own)
  const created = displayDateTime(session.creation)
  return (
    <li
      id={anchorId(ROW, session.id)}
      className="flex flex-col gap-3 p-4 sm:flex-row sm:items-start sm:justify-between"
    >
      <div className="flex min-w-0 flex-col gap-2">
        <h3 className="flex flex-wrap items-center gap-2 font-medium break-words">
          {browser}
          {session.courante ? (
            <span className="rounded-full border border-primary/40 bg-primary/10 px-2 py-0.5 text-xs font-medium text-foreground">
              {t('sessions.thisDevice')}
            </span>
          ) : null}
        </h3>
        <dl className="grid gap-1 text-sm">
          <div className="flex flex-wrap gap-x-2">
            <dt className="text-muted-foreground">{t('sessions.created')}</dt>
            <dd className="tabular-nums">{created}</dd>
          </div>
          <div className="flex flex-wrap gap-x-2">
            <dt className="text-muted-foreground">{t('sessions.lastUsed')}</dt>
            <dd className="tabular-nums">{displayDateTime(session.derniereUtilisation)}</dd>
          </div>
          <div className="flex flex-wrap gap-x-2">
            <dt className="text-muted-foreground">
              {session.appareil ? t('sessions.deviceApplication') : t('sessions.applications')}
            </dt>
            <dd className="break-words">
              {session.appareil
                ? session.appareil.application.libelle
                : session.applications.length === 0
                  ? t('sessions.noApplication')
                  : session.applications.map((application) => application.libelle).join(', ')}
            </dd>
          </div>
        </dl>
      </div>
      {own ? (
        <ConfirmDialog
          id={anchorId('terminer', session.id)}
          fallbackHref={urlWith(search, { confirmer: 'session', id: session.id })}
          triggerClassName="self-start shrink-0"
          {...endOne(t, session, sessions)}
        >
          <X aria-hidden />
          <span className="sr-only">
            {session.courante ? t('sessions.endCurrentLabel') : t('sessions.endLabel', { browser, date: created })}
          </span>
          <span aria-hidden>{t('sessions.end')}</span>
        </ConfirmDialog>
      ) : null}
    </li>
  )
}
