import { useLocation } from '@remix-run/react'
import { ClientCard, RenewPanel } from './application-client'
import { ApplicationForm } from './application-form'
import { RENEW_CONFIRM } from './client-secret'

type FormProps = Parameters<typeof ApplicationForm>[0]

/**
 * The form's data: the page's, or, after "show its functions" without JavaScript, the action's
 * (the same data for the structure chosen, with what was typed).
 */
export function formProps(reloaded: unknown, loaded: FormProps): FormProps {
  const again = reloaded as (FormProps & { intent?: string }) | undefined
  const { values, grants, grantsKept, structures, shown, total, recherche, structure, fonctions, constraint, saml } =
    again?.intent === 'fonctions' ? again : loaded
  return { values, grants, grantsKept, structures, shown, total, recherche, structure, fonctions, constraint, saml }
}

/**
 * The application screen of both routes (register, edit): its title, on the edit page of an OpenID
 * Connect application its client (the id, the renewal of a confidential client's secret, confirmed
 * first: a dialog, or without JavaScript the panel at `?confirmer=secret`), and the form.
 */
export function ApplicationScreen({
  title,
  application,
  client,
  ...props
}: FormProps & {
  title: string
  application: { id: number; libelle: string } | null
  client: { clientId: string; public: boolean } | null
}) {
  const { search } = useLocation()
  const params = new URLSearchParams(search)
  const renewing =
    application && client && !client.public && params.get('confirmer') === RENEW_CONFIRM.confirmer ? application : null
  return (
    <div className="flex flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      {renewing ? <RenewPanel application={renewing} /> : null}
      {application && client ? <ClientCard application={application} client={client} /> : null}
      <ApplicationForm {...props} />
    </div>
  )
}
