import { Badge, Button, Group, Paper, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { useNavigate } from 'react-router'
import { ApiError } from '../../api/client'
import { changeMemberRole, inviteMember, memberQueries, removeMember } from '../../api/members'
import { useProject } from '../../api/project-context'
import { projectsQuery } from '../../api/projects'
import { meQuery, rememberProjectId } from '../../api/session'
import type { Member, MemberInvite, MemberRole, Project } from '../../api/types'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert, QueryState } from '../../components/states'
import { TableScroll } from '../../components/TableFrame'
import { PendingInvitations } from './PendingInvitations'
import { canAdminister, isOwner } from './roles'

const roles: { value: MemberRole; label: string }[] = [
  { value: 'OWNER', label: 'Owner' },
  { value: 'ADMIN', label: 'Admin' },
  { value: 'MEMBER', label: 'Member' },
]

/** The roles this user may hand out: owners any, admins below owner (the API refuses the rest). */
function grantable(project: Project) {
  return isOwner(project) ? roles : roles.filter((role) => role.value !== 'OWNER')
}

export function TeamPage() {
  const { project } = useProject()
  const members = useQuery(memberQueries.list(project.id))
  return (
    <Stack gap="lg" maw={900}>
      {canAdminister(project) && <InviteForm project={project} />}
      {canAdminister(project) && <PendingInvitations project={project} />}
      <Paper withBorder p="lg" component="section" aria-labelledby="team-members">
        <Title order={2} size="h4" mb="sm" id="team-members">
          Members
        </Title>
        <QueryState query={members} label="Loading members">
          {(list) => (
            <TableScroll minWidth={640}>
              <Table verticalSpacing="sm" aria-label={`Members of ${project.name}`}>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th scope="col">Email</Table.Th>
                    <Table.Th scope="col" w={200}>
                      Role
                    </Table.Th>
                    <Table.Th scope="col" w={160}>
                      Joined
                    </Table.Th>
                    <Table.Th scope="col" w={120}>
                      <span className="visually-hidden">Actions</span>
                    </Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {list.map((member) => (
                    <MemberRow key={member.userId} member={member} project={project} />
                  ))}
                </Table.Tbody>
              </Table>
            </TableScroll>
          )}
        </QueryState>
      </Paper>
    </Stack>
  )
}

function InviteForm({ project }: { project: Project }) {
  const [email, setEmail] = useState('')
  const [role, setRole] = useState<MemberRole>('MEMBER')
  const queryClient = useQueryClient()
  const invite = useMutation({
    mutationFn: (body: MemberInvite) => inviteMember(project.id, body),
    onSuccess: (data) => {
      setEmail('')
      notifySuccess(
        data.status === 'ACTIVE'
          ? `${data.email} already had an account and is now a member.`
          : `An invitation was mailed to ${data.email}.`,
        data.status === 'ACTIVE' ? 'Member added' : 'Invitation sent',
      )
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: memberQueries.list(project.id).queryKey }),
        queryClient.invalidateQueries({ queryKey: memberQueries.invitations(project.id).queryKey }),
      ])
    },
  })
  const error = invite.error instanceof ApiError ? invite.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    invite.mutate({ email, role })
  }
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="invite-member">
      <Title order={2} size="h4" mb="xs" id="invite-member">
        Invite someone
      </Title>
      <Text size="sm" c="dimmed" mb="sm">
        Someone with an account joins at once; anyone else gets an email with a link valid for seven days.
      </Text>
      <form onSubmit={onSubmit} noValidate>
        <Stack gap="sm">
          {invite.isError && (!error || error.general) && <ErrorAlert error={invite.error} title="Not invited" />}
          <Group align="flex-start">
            <TextInput
              label="Email"
              type="email"
              required
              w={320}
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
              error={error?.forField('email')}
            />
            <Select
              label="Role"
              w={160}
              data={grantable(project)}
              value={role}
              onChange={(value) => value && setRole(value as MemberRole)}
              allowDeselect={false}
              error={error?.forField('role')}
            />
            <Button type="submit" mt={25} loading={invite.isPending}>
              Invite
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  )
}

function MemberRow({ member, project }: { member: Member; project: Project }) {
  const { queryKey } = memberQueries.list(project.id)
  const me = useQuery(meQuery)
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const self = me.data?.id === member.userId
  // Admins manage everyone below owner; owners manage everyone. The API has the last word (the last owner).
  const manageable = canAdminister(project) && (isOwner(project) || member.role !== 'OWNER')
  const changeRole = useMutation({
    mutationFn: (role: MemberRole) => changeMemberRole(project.id, member.userId, role),
    onSuccess: () => queryClient.invalidateQueries({ queryKey }),
  })
  const remove = useMutation({
    mutationFn: () => removeMember(project.id, member.userId),
    onSuccess: async () => {
      if (!self) return queryClient.invalidateQueries({ queryKey })
      // Leaving: the project is no longer this user's.
      rememberProjectId(undefined)
      queryClient.setQueryData(projectsQuery.queryKey, (list) => list?.filter((p) => p.id !== project.id))
      navigate('/', { replace: true })
    },
  })
  const removeLabel = self ? 'Leave' : 'Remove'
  const confirmRemove = () => {
    const question = self
      ? `Leave ${project.name}? You lose access to it at once.`
      : `Remove ${member.email} from ${project.name}? They are logged out at once.`
    if (window.confirm(question)) remove.mutate()
  }
  const failure = changeRole.error ?? remove.error
  return (
    <Table.Tr>
      <Table.Td>
        <Text size="sm">
          {member.email}
          {self && (
            <Text span size="xs" c="dimmed">
              {' '}
              (you)
            </Text>
          )}
        </Text>
        {failure && <ErrorAlert error={failure} title={changeRole.error ? 'Role not changed' : 'Not removed'} />}
      </Table.Td>
      <Table.Td>
        {manageable ? (
          <Select
            aria-label={`Role of ${member.email}`}
            size="xs"
            data={grantable(project)}
            value={member.role}
            onChange={(value) => value && value !== member.role && changeRole.mutate(value as MemberRole)}
            allowDeselect={false}
            disabled={changeRole.isPending}
          />
        ) : (
          <Badge variant="light" color="gray.8">
            {roles.find((role) => role.value === member.role)?.label}
          </Badge>
        )}
      </Table.Td>
      <Table.Td>
        <Text size="sm">{new Date(member.createdAt).toLocaleDateString()}</Text>
      </Table.Td>
      <Table.Td>
        {(manageable || self) && (
          <Button
            size="xs"
            variant="outline"
            color="red.9"
            loading={remove.isPending}
            onClick={confirmRemove}
            aria-label={self ? `Leave ${project.name}` : `Remove ${member.email}`}
          >
            {removeLabel}
          </Button>
        )}
      </Table.Td>
    </Table.Tr>
  )
}
