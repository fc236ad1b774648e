/** Which widget the server checks (CAPTCHA_PROVIDER), and Turnstile's public site key. */
export type CaptchaConfig = { provider: 'altcha' | 'turnstile'; siteKey: string | null }

/** The signed arithmetic question asked without JavaScript. */
export type CaptchaQuestion = { a: number; b: number; question: string }
