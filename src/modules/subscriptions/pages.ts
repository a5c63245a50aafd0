/**
 * The pages a contact reaches from the links in an email. They work without JavaScript or external assets
 * (some mail clients open links in stripped-down browsers), and every state change is a POST form: mail
 * scanners follow GET links, and a scanner must never unsubscribe anyone. Each dynamic value is escaped.
 */
export type ContactPage = {
  /** Shown as the sender: the project's name. */
  projectName: string
  email: string
  /** Shown above everything: the page is a preview reached from a test email. */
  notice?: string
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => escapes[char] ?? char)
}

const style = `
  *{box-sizing:border-box}
  body{margin:0;padding:2rem 1rem;background:#f4f4f5;color:#18181b;
    font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif}
  main{max-width:28rem;margin:0 auto;padding:2rem;background:#fff;border-radius:.75rem;
    box-shadow:0 1px 3px rgba(0,0,0,.12)}
  h1{margin:0 0 1rem;font-size:1.5rem;line-height:1.25}
  p{margin:0 0 1rem}
  form{margin:1.5rem 0 0}
  button{font:inherit;font-weight:600;padding:.625rem 1.25rem;border:0;border-radius:.5rem;
    background:#18181b;color:#fff;cursor:pointer}
  button:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
  .email{font-weight:600;word-break:break-all}
  .notice{padding:.75rem 1rem;border-radius:.5rem;background:#fef9c3;color:#713f12}
  @media (prefers-color-scheme:dark){body{background:#18181b;color:#f4f4f5}main{background:#27272a}
    button{background:#f4f4f5;color:#18181b}}
`

type Layout = { title: string; heading: string; body: string; notice?: string | undefined }

function layout({ title, heading, body, notice }: Layout): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body>
<main>
${notice ? `<p class="notice" role="note">${escapeHtml(notice)}</p>\n` : ''}<h1>${escapeHtml(heading)}</h1>
${body}
</main>
</body>
</html>
`
}

/** A POST form with one button; `fields` become hidden inputs. */
function actionForm(actionUrl: string, label: string, fields: Record<string, string> = {}): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('')
  return `<form method="post" action="${escapeHtml(actionUrl)}">${inputs}<button type="submit">${escapeHtml(label)}</button></form>`
}

function emailLine(text: string, email: string, after = ''): string {
  return `<p>${escapeHtml(text)} <span class="email">${escapeHtml(email)}</span>${escapeHtml(after)}</p>`
}

/** GET of an unsubscribe link: asks for confirmation, which POSTs to `actionUrl`. */
export function unsubscribePage(options: ContactPage & { actionUrl: string }): string {
  return layout({
    notice: options.notice,
    title: `Unsubscribe from ${options.projectName}`,
    heading: 'Unsubscribe?',
    body: [
      emailLine(`You will no longer receive emails from ${options.projectName} at`, options.email, '.'),
      actionForm(options.actionUrl, 'Unsubscribe'),
    ].join('\n'),
  })
}

/** After unsubscribing; offers to undo it when `resubscribeUrl` (the subscribe link) is given. */
export function unsubscribedPage(options: ContactPage & { resubscribeUrl?: string }): string {
  return layout({
    notice: options.notice,
    title: `Unsubscribed from ${options.projectName}`,
    heading: 'You have been unsubscribed',
    body: [
      emailLine(`${options.projectName} will no longer send emails to`, options.email, '.'),
      options.resubscribeUrl
        ? `<p>Unsubscribed by mistake?</p>${actionForm(options.resubscribeUrl, 'Subscribe again')}`
        : '',
    ].join('\n'),
  })
}

/** GET of a subscribe link: asks for confirmation, which POSTs to `actionUrl`. */
export function subscribePage(options: ContactPage & { actionUrl: string }): string {
  return layout({
    notice: options.notice,
    title: `Subscribe to ${options.projectName}`,
    heading: 'Subscribe again?',
    body: [
      emailLine(`You will receive emails from ${options.projectName} again at`, options.email, '.'),
      actionForm(options.actionUrl, 'Subscribe'),
    ].join('\n'),
  })
}

export function resubscribedPage(options: ContactPage): string {
  return layout({
    notice: options.notice,
    title: `Subscribed to ${options.projectName}`,
    heading: 'You are subscribed again',
    body: emailLine(`${options.projectName} will send emails to`, options.email, ' again.'),
  })
}

/**
 * Preferences: the current status and one button that flips it, posting `subscribed=true|false` to
 * `actionUrl` (the manage link).
 */
export function managePage(options: ContactPage & { subscribed: boolean; actionUrl: string }): string {
  const status = options.subscribed
    ? `You are subscribed to emails from ${options.projectName}.`
    : `You are not subscribed to emails from ${options.projectName}.`
  return layout({
    notice: options.notice,
    title: `Email preferences for ${options.projectName}`,
    heading: 'Email preferences',
    body: [
      emailLine('Preferences for', options.email),
      `<p>${escapeHtml(status)}</p>`,
      actionForm(options.actionUrl, options.subscribed ? 'Unsubscribe' : 'Subscribe', {
        subscribed: String(!options.subscribed),
      }),
    ].join('\n'),
  })
}

/** For a token that is malformed, tampered or names a contact that no longer exists: no details either way. */
export function invalidLinkPage(): string {
  return layout({
    title: 'Link not valid',
    heading: 'This link is not valid',
    body: '<p>It may have been copied incompletely. Please use the link from the most recent email you received.</p>',
  })
}

export function errorPage(): string {
  return layout({
    title: 'Something went wrong',
    heading: 'Something went wrong',
    body: '<p>We could not complete your request. Please try again in a few minutes.</p>',
  })
}
