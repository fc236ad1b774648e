import { Form, useActionData, useLocation, useSubmit } from '@remix-run/react'
import { CalendarClock, Mail, Save } from 'lucide-react'
import { useTranslation } from 'react-i18next'
import { ConfirmPanel } from '~/components/confirm-dialog'
import { Button } from '~/components/ui/button'
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '~/components/ui/card'
import { Label } from '~/components/ui/label'
import { Switch } from '~/components/ui/switch'
import { FOCUS_FIELD } from '~/lib/focus'
import { type FormReply, usePendingIntent } from '~/lib/form'
import { useHydrated } from '~/lib/hydrated'
import type { User } from '../../../worker-api/contract/organisation/user'
import type { DemotionShown } from './stopping-accounts'
import { StoppingAccountsNote } from './stopping-accounts-note'

/** The ids the card's forms bring focus back to, without JavaScript (`FOCUS_FIELD`). */
const APPLY_FLAGS = 'appliquer-etats'
const INVITE = 'inviter'
/** The demotion's confirmation, when it stops service accounts. */
const DEMOTE_PANEL = 'confirmer-retrait-admin'

const dateTime = (epoch: number, language: string) =>
  new Intl.DateTimeFormat(language === 'en' ? 'en-GB' : 'fr-FR', {
    dateStyle: 'short',
    timeStyle: 'short',
    timeZone: 'Europe/Paris',
  }).format(epoch)

/**
 * The active and admin switches (spec §4: the active one is not for administrators) and the
 * invitation. With JavaScript a switch applies as it is flipped; without, the form's button does.
 */
export function AccountCard({ user, editable }: { user: User; editable: boolean }) {
  const { t, i18n } = useTranslation()
  const hydrated = useHydrated()
  const submit = useSubmit()
  const pending = usePendingIntent('flags')
  const inviting = usePendingIntent('invitation')
  const { pathname, search } = useLocation()
  // A demotion that would stop service accounts comes back to be confirmed, the accounts named; the flag unchanged.
  const reply = useActionData() as FormReply<'flags', DemotionShown> | undefined
  const demoting = reply?.intent === 'flags' && user.admin ? (reply.shown?.stopping ?? null) : null
  const name = `${user.prenom} ${user.nom}`
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
              key={`admin-${user.admin}-${demoting ? 'asked' : ''}`}
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
        {demoting && editable ? (
          <ConfirmPanel
            id={DEMOTE_PANEL}
            cancelHref={`${pathname}${search}`}
            returnTo="switch-admin"
            title={t('adminProfile.demoteTitle', { name })}
            description={t('adminProfile.demoteConfirm')}
            confirmLabel={t('adminProfile.demote')}
            pendingLabel={t('adminProfile.demoting')}
            fields={{ intent: 'flags', wasAdmin: 'true', confirme: 'oui', [FOCUS_FIELD]: 'switch-admin' }}
          >
            <StoppingAccountsNote stopping={demoting} userId={user.id} name={name} />
          </ConfirmPanel>
        ) : null}
        {user.tokenRegister !== null || !user.motDePasseChoisi ? (
          <div className="flex flex-col gap-2 rounded-md border border-dashed p-3 text-sm">
            <p className="flex items-start gap-2">
              <CalendarClock aria-hidden className="mt-0.5 size-4 shrink-0" />
              {user.tokenRegister === null
                ? // Imported or provisioned without an invitation, or deactivated since (its link died).
                  t(user.actif ? 'adminProfile.notInvited' : 'adminProfile.invitedOnActivation')
                : user.tokenRegister > Date.now()
                  ? t('adminProfile.invitationPending', { date: dateTime(user.tokenRegister, i18n.language) })
                  : t('adminProfile.invitationExpired', { date: dateTime(user.tokenRegister, i18n.language) })}
            </p>
            {editable && !user.supprime && user.actif ? (
              <Form method="post" preventScrollReset>
                <input type="hidden" name="intent" value="invitation" />
                <input type="hidden" name={FOCUS_FIELD} value={INVITE} />
                <Button id={INVITE} type="submit" variant="outline" size="sm" disabled={inviting}>
                  <Mail aria-hidden />
                  {inviting
                    ? t('adminProfile.inviting')
                    : t(user.tokenRegister === null ? 'adminProfile.inviteFirst' : 'adminProfile.invite')}
                </Button>
              </Form>
            ) : null}
          </div>
        ) : null}
      </CardContent>
    </Card>
  )
}
