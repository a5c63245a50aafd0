import { escapeHtml } from '../subscriptions/pages.js'

/** One account email: what the recipient reads and the one link it exists for. */
export type SystemMessage = { subject: string; html: string; link: string }

function layout(heading: string, text: string, action: string, link: string, footer: string): string {
  const href = escapeHtml(link)
  return `<!doctype html><html><body style="font-family:sans-serif;color:#111">
<h1 style="font-size:20px">${escapeHtml(heading)}</h1>
<p>${escapeHtml(text)}</p>
<p><a href="${href}" style="display:inline-block;padding:10px 16px;background:#111;color:#fff;text-decoration:none">${escapeHtml(action)}</a></p>
<p style="font-size:12px;color:#555">Or open this address: ${href}</p>
<p style="font-size:12px;color:#555">${escapeHtml(footer)}</p>
</body></html>`
}

export function verificationMessage(link: string): SystemMessage {
  return {
    subject: 'Verify your email address',
    link,
    html: layout(
      'Verify your email address',
      'Confirm that this address belongs to your Mailroom account.',
      'Verify email',
      link,
      'The link works once and expires in one hour. If you did not sign up, ignore this email.',
    ),
  }
}

export function passwordResetMessage(link: string): SystemMessage {
  return {
    subject: 'Reset your password',
    link,
    html: layout(
      'Reset your password',
      'Someone asked to reset the password of your Mailroom account. Choose a new one with the link below.',
      'Choose a new password',
      link,
      'The link works once and expires in one hour. If you did not ask for this, ignore this email: your password stays as it is.',
    ),
  }
}

export function invitationMessage(link: string, projectName: string, invitedBy: string | null): SystemMessage {
  const who = invitedBy ?? 'A project administrator'
  return {
    subject: `You are invited to ${projectName} on Mailroom`,
    link,
    html: layout(
      `Join ${projectName} on Mailroom`,
      `${who} invited you to the project ${projectName}. Sign up or log in with this address to join.`,
      'Accept the invitation',
      link,
      'The invitation expires in seven days.',
    ),
  }
}

export function webhookDisabledMessage(
  link: string,
  projectName: string,
  url: string,
  failingSince: Date,
): SystemMessage {
  return {
    subject: `A webhook of ${projectName} was disabled`,
    link,
    html: layout(
      `A webhook of ${projectName} was disabled`,
      `Mailroom stopped sending events to ${url}: every delivery has failed since ${failingSince.toUTCString()}. ` +
        'The events since then are kept: fix the endpoint, enable it again, and retry or replay them.',
      'Open webhooks',
      link,
      'You receive this because you own the project.',
    ),
  }
}
