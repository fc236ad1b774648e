import { data, type LoaderFunctionArgs, type MetaFunction } from '@remix-run/cloudflare'
import { useLoaderData } from '@remix-run/react'
import { useTranslation } from 'react-i18next'
import { Card, CardContent, CardHeader } from '~/components/ui/card'
import { requireUser } from '~/lib/auth.server'
import type { BreadcrumbHandle } from '~/lib/breadcrumb'
import { i18nServer } from '~/lib/i18n.server'
import type { Poste, User } from '../../worker-api/services/users'

export const handle: BreadcrumbHandle = { breadcrumb: 'nav.profile' }
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data?.title ?? 'Portail' }]

/** Own profile, read-only for now: editing and password change come with account self-service. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const auth = await requireUser(request, context)
  const [me, t] = await Promise.all([auth.api<User>(`bd/utilisateur/${auth.user.id}`), i18nServer.getFixedT(request)])
  return data(
    { me: await auth.expect(me), title: `${t('profile.title')} · ${t('app.name')}` },
    { headers: await auth.headers() },
  )
}

function Postes({ title, postes }: { title: string; postes: Poste[] }) {
  const { t } = useTranslation()
  return (
    <section className="flex flex-col gap-2">
      <h2 className="font-semibold">{title}</h2>
      {postes.length === 0 ? (
        <p className="text-sm text-muted-foreground">{t('profile.noPoste')}</p>
      ) : (
        <ul className="flex flex-col gap-2">
          {postes.map((poste) => (
            <li key={poste.id} className="rounded-md border p-3 text-sm">
              <span className="font-medium">{poste.fonction.libelle}</span> — {poste.structure.nom}
              <br />
              <span className="text-muted-foreground">
                {t('profile.dates', { from: poste.dateDebut, to: poste.dateFin })}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}

export default function Profile() {
  const { me } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const rows: [string, string][] = [
    [t('profile.login'), me.login],
    [t('profile.nom'), me.nom],
    [t('profile.prenom'), me.prenom],
    [t('profile.mail'), me.mail],
  ]
  return (
    <div className="flex max-w-3xl flex-col gap-6">
      <h1 className="text-2xl font-semibold tracking-tight">{t('profile.title')}</h1>
      <Card>
        <CardHeader>
          <dl className="grid gap-3 sm:grid-cols-[10rem_1fr]">
            {rows.map(([label, value]) => (
              <div key={label} className="contents">
                <dt className="text-sm text-muted-foreground">{label}</dt>
                <dd className="font-medium">{value}</dd>
              </div>
            ))}
          </dl>
        </CardHeader>
        <CardContent className="grid gap-6 sm:grid-cols-2">
          <Postes title={t('profile.postesEnCours')} postes={me.postesEnCours} />
          <Postes title={t('profile.postesFutur')} postes={me.postesFutur} />
        </CardContent>
      </Card>
    </div>
  )
}
