import { Readable } from 'node:stream'
import type { Executor } from '../../db/client.js'
import { branchesOf, type RecipientState } from './recipient-states.js'
import { findRecipientRows, type RecipientPosition, toRecipient } from './recipients.js'
import type { CampaignRecipient } from './schemas.js'
import { findCampaignRow } from './view.js'

/** Rows read per statement: each chunk is written (and its memory let go) before the next is read. */
const chunkRows = 1_000

export const recipientCsvHeader =
  'email_id,contact_id,email,status,sent_at,delivered_at,opened_at,clicked_at,bounced_at,complained_at,failed_at,failure_reason\r\n'

/** RFC 4180 quoting; a text cell a spreadsheet would run as a formula (=, +, -, @) is prefixed with '. */
function cell(value: string | null): string {
  if (value === null) return ''
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

const time = (value: Date | null) => value?.toISOString() ?? ''

function csvLine(recipient: CampaignRecipient): string {
  return `${[
    recipient.emailId,
    recipient.contactId ?? '',
    cell(recipient.email),
    recipient.status,
    time(recipient.sentAt),
    time(recipient.deliveredAt),
    time(recipient.openedAt),
    time(recipient.clickedAt),
    time(recipient.bouncedAt),
    time(recipient.complainedAt),
    time(recipient.failedAt),
    cell(recipient.failureReason),
  ].join(',')}\r\n`
}

/**
 * `GET /campaigns/:id/recipients.csv`: the campaign's recipients in a state (all without one) as CSV, read a chunk
 * at a time and pulled by the reply stream, so a million rows hold one chunk in memory. Each of the state's ranges
 * is read on its own, in id order: a chunk taken across all of them (as a page of the listing is) would read a
 * chunk from each range to keep one. The campaign is checked before the first byte, so another project's id is a
 * 404, not an empty file.
 */
export async function streamCampaignRecipientsCsv(
  db: Executor,
  projectId: string,
  campaignId: string,
  state: RecipientState | undefined,
): Promise<Readable> {
  await findCampaignRow(db, projectId, campaignId)
  const branches = branchesOf(state)
  async function* lines() {
    yield recipientCsvHeader
    for (const branch of branches) {
      let after: RecipientPosition | undefined
      for (;;) {
        const rows = await findRecipientRows(db, projectId, campaignId, [branch], after, chunkRows)
        if (rows.length > 0) yield rows.map((row) => csvLine(toRecipient(row))).join('')
        const last = rows.at(-1)
        if (!last || rows.length < chunkRows) break
        after = { branch: 0, id: last.id }
      }
    }
  }
  return Readable.from(lines(), { objectMode: false })
}
