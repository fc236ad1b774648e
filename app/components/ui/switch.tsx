import * as React from 'react'
import { cn } from '~/lib/utils'

export type SwitchProps = Omit<React.InputHTMLAttributes<HTMLInputElement>, 'type' | 'role'>

/**
 * An on/off switch that is a native checkbox with `role="switch"`, styled as a track and thumb.
 *
 * Why not Radix Switch: it renders a `<button>` and only mirrors its state into a hidden input once
 * JavaScript runs, so without JavaScript it neither toggles nor posts. The native checkbox toggles,
 * is focusable, is announced as a switch ("on"/"off") and posts `name=on` when checked (nothing when
 * not, like any checkbox) — with or without JavaScript, and with no dependency.
 *
 * Label it as any input: `<Label htmlFor="actif">…</Label><Switch id="actif" name="actif" />`.
 */
export const Switch = React.forwardRef<HTMLInputElement, SwitchProps>(({ className, ...props }, ref) => (
  <span className={cn('relative inline-flex h-6 w-11 shrink-0 items-center', className)}>
    <input
      ref={ref}
      type="checkbox"
      // biome-ignore lint/a11y/useAriaPropsForRole: a native checkbox's own `checked` is its aria-checked
      role="switch"
      className={cn(
        // The input itself is the track; the transparent border shows in forced-colours mode.
        'peer absolute inset-0 size-full cursor-pointer appearance-none rounded-full border-2 border-transparent bg-input transition-colors',
        'checked:bg-primary focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring focus-visible:ring-offset-2',
        'disabled:cursor-not-allowed disabled:opacity-60',
      )}
      {...props}
    />
    {/* The thumb keeps its own colour in forced-colours mode, where backgrounds are otherwise dropped. */}
    <span
      aria-hidden
      className="pointer-events-none absolute left-0.5 size-5 rounded-full bg-card shadow-sm transition-transform peer-checked:translate-x-5 motion-reduce:transition-none forced-colors:bg-[CanvasText] forced-color-adjust-none"
    />
  </span>
))
Switch.displayName = 'Switch'
