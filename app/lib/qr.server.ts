import { renderSVG } from 'uqr'

/** A QR code of `text` as an SVG made on the server (an authenticator's enrolment, a device's sign-in address). */
export function qrCodeSvg(text: string): string {
  return renderSVG(text, { border: 2, ecc: 'M', pixelSize: 6, whiteColor: '#ffffff', blackColor: '#000000' })
}
