import { Text, Title } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { emailQueries } from '../../api/emails'
import { useProject } from '../../api/project-context'
import { EmptyState, QueryState } from '../../components/states'
import { EmailRows } from '../emails/EmailRows'

/** Within the 31 days the listing reads at once, with room for the browser's clock being ahead of the server's. */
const windowDays = 30

/** The contact's newest emails, each opening its timeline ("did she get the reset email?"). */
export function ContactEmails({ contactId }: { contactId: string }) {
  const { project } = useProject()
  // Fixed for the page's life, so the query key stays stable.
  const startDate = useMemo(() => new Date(Date.now() - windowDays * 24 * 3_600_000).toISOString(), [])
  const emails = useQuery(emailQueries.page(project.id, { contactId, startDate, limit: 10 }))
  return (
    <section aria-labelledby="contact-emails">
      <Title order={2} size="h4" mb="xs" id="contact-emails">
        Emails
      </Title>
      <QueryState query={emails} label="Loading emails">
        {(page) =>
          page.data.length === 0 ? (
            <EmptyState title="No emails in the last 30 days">
              Emails sent to this contact appear here, each with its timeline.
            </EmptyState>
          ) : (
            <>
              <EmailRows emails={page.data} label="Emails to this contact" withRecipient={false} />
              {page.hasMore && (
                <Text size="sm" c="dimmed" mt="xs">
                  The newest {page.data.length}; the Emails page lists the others by this address.
                </Text>
              )}
            </>
          )
        }
      </QueryState>
    </section>
  )
}
