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
import type { ApplicationIcon } from '../../worker-api/contract/catalogue/catalogue'

/**
 * Application icons are names stored with the application (the catalogue accepts these names only);
 * a name stored before that gets a generic icon.
 */
const ICONS: Record<ApplicationIcon, LucideIcon> = {
  warning: TriangleAlert,
  calendar: CalendarClock,
  scale: Scale,
  receipt: Receipt,
  truck: Truck,
  warehouse: Warehouse,
}

export function AppIcon({ name, className }: { name: string; className?: string }) {
  const Icon = ICONS[name as ApplicationIcon] ?? AppWindow
  return <Icon aria-hidden className={className} />
}
