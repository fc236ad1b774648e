import type * as React from 'react'
import { Card, CardContent, CardDescription, CardHeader } from './ui/card'

/** The frame of the pages outside the portal's layout: one card in the middle of the screen. */
export function CenteredCard({
  eyebrow,
  title,
  description,
  children,
  after,
}: {
  eyebrow: string
  title: string
  description?: string
  children: React.ReactNode
  /** Below the card (the language switch). */
  after?: React.ReactNode
}) {
  return (
    <main id="main" className="flex min-h-screen flex-col items-center justify-center gap-6 bg-muted p-4">
      <Card className="w-full max-w-md">
        <CardHeader>
          <p className="text-sm font-medium text-primary">{eyebrow}</p>
          <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
          {description ? <CardDescription>{description}</CardDescription> : null}
        </CardHeader>
        <CardContent className="flex flex-col gap-4">{children}</CardContent>
      </Card>
      {after}
    </main>
  )
}
