import { randomUUID } from 'node:crypto'
import { simpleParser } from 'mailparser'
import { describe, expect, it } from 'vitest'
import { complaintReportOf } from '../../../src/mail/inbound/complaint-report.js'
import {
  complaintFeedbackId,
  emailOfComplaintFeedbackId,
  type FeedbackSource,
  feedbackHeaders,
} from '../../../src/mail/outbound/feedback-headers.js'

const secret = 'a-test-secret-of-at-least-thirty-two-chars'
const projectId = randomUUID()
const campaign: FeedbackSource = {
  emailId: randomUUID(),
  projectId,
  sourceType: 'CAMPAIGN',
  campaignId: randomUUID(),
  workflowId: null,
  templateId: null,
  fromEmail: 'news@Shop.Example',
  bulk: true,
}

// RFC 9477's grammar for the id: `1*(atext / ":")`.
const fid = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~:-]+$/

describe('feedback headers', () => {
  it('name the stream, the source type and the project, with a fixed SenderId of 5–15 characters', () => {
    expect(feedbackHeaders(campaign, undefined, true)).toEqual({
      'Feedback-ID': `${campaign.campaignId}:campaign:${projectId}:mailroom`,
    })
    const workflow = { ...campaign, sourceType: 'WORKFLOW' as const, campaignId: null, workflowId: randomUUID() }
    expect(feedbackHeaders(workflow, undefined, true)['Feedback-ID']).toBe(
      `${workflow.workflowId}:workflow:${projectId}:mailroom`,
    )
    const inline = { ...campaign, sourceType: 'TRANSACTIONAL' as const, campaignId: null, bulk: false }
    expect(feedbackHeaders(inline, { secret }, true)).toEqual({
      'Feedback-ID': `:transactional:${projectId}:mailroom`,
    })
  })

  it('add the CFBL pair only to bulk mail signed for its From domain while reports can reach us', () => {
    const headers = feedbackHeaders(campaign, { secret }, true)
    expect(headers['CFBL-Address']).toBe('fbl@shop.example; report=arf')
    expect(headers['CFBL-Feedback-ID']).toMatch(fid)
    expect(Object.keys(feedbackHeaders(campaign, { secret }, false))).toEqual(['Feedback-ID'])
    expect(Object.keys(feedbackHeaders(campaign, undefined, true))).toEqual(['Feedback-ID'])
    expect(Object.keys(feedbackHeaders({ ...campaign, bulk: false }, { secret }, true))).toEqual(['Feedback-ID'])
  })

  it('sign the CFBL-Feedback-ID: it names its email, and an altered or foreign one names none', () => {
    const value = complaintFeedbackId(secret, campaign.emailId)
    expect(value).toHaveLength(45)
    expect(emailOfComplaintFeedbackId(secret, value)).toBe(campaign.emailId)
    expect(emailOfComplaintFeedbackId(secret, ` ${value} `)).toBe(campaign.emailId)
    expect(emailOfComplaintFeedbackId(`${secret}-other`, value)).toBeUndefined()
    const altered = `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`
    expect(emailOfComplaintFeedbackId(secret, altered)).toBeUndefined()
    expect(emailOfComplaintFeedbackId(secret, 'not-a-token')).toBeUndefined()
  })
})

function report(reportedPart: string[]): Buffer {
  return Buffer.from(
    [
      'From: fbl@mbp.test',
      'To: fbl@shop.example',
      'Subject: report',
      'MIME-Version: 1.0',
      'Content-Type: multipart/report; report-type=feedback-report; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'Spam report',
      '--b',
      'Content-Type: message/feedback-report',
      '',
      'Feedback-Type: Abuse',
      'User-Agent: MBP/2',
      'Version: 1',
      '',
      '--b',
      ...reportedPart,
      '--b--',
      '',
    ].join('\r\n'),
  )
}

describe('an ARF complaint report', () => {
  it('gives its feedback type and the CFBL-Feedback-ID of a whole reported message, folded or not', async () => {
    const value = complaintFeedbackId(secret, campaign.emailId)
    const parsed = await simpleParser(
      report([
        'Content-Type: message/rfc822',
        '',
        'From: news@shop.example',
        `CFBL-Feedback-ID: ${value.slice(0, 20)}`,
        ` ${value.slice(20)}`,
        'Subject: Spring',
        '',
        'Spring is here',
      ]),
    )
    const found = complaintReportOf(parsed)
    expect(found).toEqual({ feedbackType: 'abuse', userAgent: 'MBP/2', feedbackIds: [expect.any(String)] })
    expect(emailOfComplaintFeedbackId(secret, found?.feedbackIds[0] ?? '')).toBe(campaign.emailId)
  })

  it('is no report for an ordinary message or a delivery status report', async () => {
    const plain = await simpleParser(Buffer.from('From: a@b.test\r\nSubject: hi\r\n\r\nCFBL-Feedback-ID: x\r\n'))
    expect(complaintReportOf(plain)).toBeUndefined()
    const dsn = report(['Content-Type: text/rfc822-headers', '', 'CFBL-Feedback-ID: x', ''])
    const parsed = await simpleParser(Buffer.from(dsn.toString().replace('feedback-report;', 'delivery-status;')))
    expect(complaintReportOf(parsed)).toBeUndefined()
  })
})
