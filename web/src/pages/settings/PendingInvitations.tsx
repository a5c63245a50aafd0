import { Anchor, Badge, Button, Group, Paper, Table, Text, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { Link } from 'react-router'
import { configQuery } from '../../api/config'
import { memberQueries, resendInvitation, revokeInvitation } from '../../api/members'
import type { PendingInvitation, Project } from '../../api/types'
import { ConfirmAction } from '../../components/ConfirmAction'
import { notifySuccess } from '../../components/notify'
import { EmptyState, ErrorAlert, QueryState } from '../../components/states'
import { TableScroll } from '../../components/TableFrame'
import { isOwner, roleLabel } from './roles'

const dateTime = (value: string) =>
  new Date(value).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })

/** Invitations not accepted yet, with who sent them and when; admins resend or revoke them (an owner's: owners). */
export function PendingInvitations({ project }: { project: Project }) {
  const invitations = useQuery(memberQueries.invitations(project.id))
  const config = useQuery(configQuery)
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="team-invitations">
      <Title order={2} size="h4" mb="xs" id="team-invitations">
        Pending invitations
      </Title>
      {config.data?.transport === 'capture' && (
        <Text size="sm" c="dimmed" mb="sm">
          This server captures mail: invitation emails are kept with the{' '}
          <Anchor component={Link} to="/mailbox" underline="always">
            captured messages
          </Anchor>
          , where you can copy their link.
        </Text>
      )}
      <QueryState query={invitations} label="Loading invitations">
        {(list) =>
          list.length === 0 ? (
            <EmptyState title="No pending invitations">
              Someone invited without an account shows here until they join.
            </EmptyState>
          ) : (
            <TableScroll minWidth={560}>
              <Table verticalSpacing="sm" aria-label={`Pending invitations to ${project.name}`}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Email</Table.Th>
                    <Table.Th scope="col">Role</Table.Th>
                    <Table.Th scope="col">Invited</Table.Th>
                    <Table.Th scope="col">Link</Table.Th>
                    <Table.Th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((invitation) => (
                    <InvitationRow key={invitation.id} invitation={invitation} project={project} />
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroll>
          )
        }
      </QueryState>
    </Paper>
  )
}

function InvitationRow({ invitation, project }: { invitation: PendingInvitation; project: Project }) {
  const queryClient = useQueryClient()
  const refresh = () => queryClient.invalidateQueries({ queryKey: memberQueries.invitations(project.id).queryKey })
  const resend = useMutation({
    mutationFn: () => resendInvitation(project.id, invitation.id),
    onSuccess: () => {
      notifySuccess(`A new link was mailed to ${invitation.email}; the earlier one no longer works.`, 'Invitation sent')
      return refresh()
    },
  })
  // Handing out the owner role, or taking back an invitation to it, is an owner's (the API refuses the rest).
  const manageable = invitation.role !== 'OWNER' || isOwner(project)
  const expired = invitation.status === 'EXPIRED'
  return (
    <Table.Tr data-testid="pending-invitation">
      <Table.Td>
        <Text size="sm">{invitation.email}</Text>
        {resend.isError && <ErrorAlert error={resend.error} title="Not sent" />}
      </Table.Td>
      <Table.Td>
        <Badge variant="light" color="gray.8">
          {roleLabel(invitation.role)}
        </Badge>
      </Table.Td>
      <Table.Td>
        <Text size="sm">
          by {invitation.invitedBy ?? 'an API key'} on {dateTime(invitation.createdAt)}
        </Text>
      </Table.Td>
      <Table.Td>
        <Text size="sm" c={expired ? 'red.9' : undefined}>
          {expired ? 'Expired' : 'Expires'} {dateTime(invitation.expiresAt)}
        </Text>
      </Table.Td>
      <Table.Td>
        {manageable && (
          <Group gap="xs" wrap="nowrap">
            <Button
              size="xs"
              variant="default"
              loading={resend.isPending}
              onClick={() => resend.mutate()}
              aria-label={`Resend the invitation to ${invitation.email}`}
            >
              Resend
            </Button>
            <ConfirmAction
              label="Revoke"
              title={`Revoke the invitation to ${invitation.email}?`}
              confirmLabel="Revoke"
              action={() => revokeInvitation(project.id, invitation.id)}
              onDone={() => {
                notifySuccess(`The invitation to ${invitation.email} no longer works.`, 'Invitation revoked')
                void refresh()
              }}
              buttonProps={{ size: 'xs', 'aria-label': `Revoke the invitation to ${invitation.email}` }}
            >
              Its link stops working at once. You can invite {invitation.email} again later.
            </ConfirmAction>
          </Group>
        )}
      </Table.Td>
    </Table.Tr>
  )
}
