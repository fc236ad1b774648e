import { renderSVG } from 'uqr'

/**
 * The QR code of an otpauth:// address, as SVG rendered on the server: an authenticator app scans it
 * from the page, with or without JavaScript, and the QR library stays out of the browser's bundle.
 */
export function qrCodeSvg(otpauthUri: string): string {
  return renderSVG(otpauthUri, { border: 2, ecc: 'M', pixelSize: 6, whiteColor: '#ffffff', blackColor: '#000000' })
}
