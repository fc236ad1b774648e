import {
  AppWindow,
  CalendarClock,
  type LucideIcon,
  Receipt,
  Scale,
  TriangleAlert,
  Truck,
  Warehouse,
} from 'lucide-react'

/** Application icons are names stored with the application; unknown names get a generic icon. */
const ICONS: Record<string, LucideIcon> = {
  warning: TriangleAlert,
  calendar: CalendarClock,
  scale: Scale,
  receipt: Receipt,
  truck: Truck,
  warehouse: Warehouse,
}

export function AppIcon({ name, className }: { name: string; className?: string }) {
  const Icon = ICONS[name] ?? AppWindow
  return <Icon aria-hidden className={className} />
}
