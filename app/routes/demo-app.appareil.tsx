import { type ActionFunctionArgs, data, type LoaderFunctionArgs, redirect } from '@remix-run/cloudflare'
import { Form, useLoaderData, useRevalidator } from '@remix-run/react'
import { LogOut, MonitorSmartphone, RefreshCw } from 'lucide-react'
import { useEffect } from 'react'
import { useTranslation } from 'react-i18next'
import { CenteredCard } from '~/components/centered-card'
import { Alert } from '~/components/ui/alert'
import { Button } from '~/components/ui/button'
import {
  DEMO_DEVICE_PATH,
  type DemoDevice,
  demoDeviceCookie,
  pollDevice,
  startDevice,
} from '~/features/demo/demo-device.server'
import { i18nServer } from '~/lib/i18n.server'
import { qrCodeSvg } from '~/lib/qr.server'
import { pageTitle, titleMeta } from '~/lib/title'

/**
 * The demo device (`npm start`): what a dock terminal signing in with the device authorization grant shows. Started,
 * it shows its code and a QR code of the address that carries it; each load of the page is a poll, made again every
 * `interval` seconds once the page is live (without JavaScript, by its button), until an agent approves or refuses it
 * on /appareil.
 */

export const meta = titleMeta

type Shown =
  | { step: 'idle'; error: string | null }
  | { step: 'waiting'; userCode: string; complete: string; qr: string }
  | { step: 'signedIn'; name: string; login: string }

export async function loader({ request, context }: LoaderFunctionArgs) {
  const t = await i18nServer.getFixedT(request)
  const title = pageTitle(t, t('demoDevice.title'))
  const cookie = demoDeviceCookie(context)
  const device = (await cookie.parse(request.headers.get('Cookie'))) as DemoDevice | null
  const headers = new Headers({ 'Cache-Control': 'no-store' })
  const answer = (shown: Shown, refresh: number | null = null) => data({ shown, refresh, title }, { headers })
  if (!device) return answer({ step: 'idle', error: new URL(request.url).searchParams.get('erreur') })
  if (device.step === 'signedIn') return answer({ step: 'signedIn', name: device.name, login: device.login })
  const polled = await pollDevice(request, context, device)
  if ('error' in polled) {
    headers.append('Set-Cookie', await cookie.serialize('', { maxAge: 0 }))
    return answer({ step: 'idle', error: polled.error })
  }
  headers.append('Set-Cookie', await cookie.serialize(polled))
  if (polled.step === 'signedIn') return answer({ step: 'signedIn', name: polled.name, login: polled.login })
  return answer(
    { step: 'waiting', userCode: polled.userCode, complete: polled.complete, qr: qrCodeSvg(polled.complete) },
    polled.interval,
  )
}

/** Start a sign-in (the device asks for its codes), or sign the device out. */
export async function action({ request, context }: ActionFunctionArgs) {
  const cookie = demoDeviceCookie(context)
  const form = await request.formData().catch(() => new FormData())
  if (form.get('intent') !== 'start') {
    return redirect(DEMO_DEVICE_PATH, { headers: { 'Set-Cookie': await cookie.serialize('', { maxAge: 0 }) } })
  }
  const started = await startDevice(request, context)
  if (typeof started === 'string') return redirect(`${DEMO_DEVICE_PATH}?${new URLSearchParams({ erreur: started })}`)
  return redirect(DEMO_DEVICE_PATH, { headers: { 'Set-Cookie': await cookie.serialize(started) } })
}

export default function DemoDevicePage() {
  const { shown, refresh } = useLoaderData<typeof loader>()
  const { t } = useTranslation()
  const revalidator = useRevalidator()
  // While the device waits, it polls again every `interval` seconds (the loader's poll).
  useEffect(() => {
    if (refresh === null) return
    const timer = setTimeout(() => revalidator.revalidate(), refresh * 1000)
    return () => clearTimeout(timer)
  }, [refresh, revalidator])
  return (
    <CenteredCard eyebrow={t('demoApp.title')} title={t('demoDevice.title')}>
      {shown.step === 'idle' ? (
        <Form method="post" className="flex flex-col gap-4">
          {shown.error ? (
            <Alert variant="destructive">
              {shown.error === 'access_denied'
                ? t('demoDevice.denied')
                : shown.error === 'expired_token'
                  ? t('demoDevice.expired')
                  : t('demoDevice.failed', { error: shown.error })}
            </Alert>
          ) : null}
          <p className="text-sm text-muted-foreground">{t('demoDevice.intro')}</p>
          <input type="hidden" name="intent" value="start" />
          <Button type="submit">
            <MonitorSmartphone aria-hidden />
            {t('demoDevice.start')}
          </Button>
        </Form>
      ) : null}
      {shown.step === 'waiting' ? (
        <div className="flex flex-col items-center gap-4">
          <p className="text-sm">{t('demoDevice.goTo')}</p>
          <p className="flex flex-col items-center gap-1">
            <span className="text-xs text-muted-foreground">{t('demoDevice.codeLabel')}</span>
            <span className="font-mono text-3xl font-semibold tracking-widest">{shown.userCode}</span>
          </p>
          <div
            role="img"
            aria-label={t('demoDevice.qrLabel')}
            className="w-48 max-w-full rounded-md border bg-white p-1 [&>svg]:h-auto [&>svg]:w-full"
            // SVG made on the server from the address the portal gave (app/lib/qr.server.ts).
            dangerouslySetInnerHTML={{ __html: shown.qr }}
          />
          <a className="text-sm break-all text-primary underline underline-offset-4" href={shown.complete}>
            {shown.complete}
          </a>
          <p className="text-sm text-muted-foreground">{t('demoDevice.waiting')}</p>
          <Form method="get">
            <Button type="submit" variant="outline">
              <RefreshCw aria-hidden />
              {t('demoDevice.check')}
            </Button>
          </Form>
        </div>
      ) : null}
      {shown.step === 'signedIn' ? (
        <Form method="post" className="flex flex-col gap-4">
          <p role="status" className="text-base">
            {t('demoDevice.signedIn', { name: shown.name, login: shown.login })}
          </p>
          <Button type="submit" variant="outline">
            <LogOut aria-hidden />
            {t('demoDevice.signOut')}
          </Button>
        </Form>
      ) : null}
    </CenteredCard>
  )
}
