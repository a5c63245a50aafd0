import { Badge, Button, Group, Stack, Text, TextInput, Title } from '@mantine/core'
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { ApiError } from '../../api/client'
import { domainQueries, setReturnPath } from '../../api/domains'
import { useProject } from '../../api/project-context'
import type { Domain } from '../../api/types'

/** The custom MAIL FROM domain: bounces go there, and SPF is judged there, once its records check out. */
export function ReturnPathForm({ domain }: { domain: Domain }) {
  const { project } = useProject()
  const queryClient = useQueryClient()
  const { queryKey } = domainQueries.list(project.id)
  const [value, setValue] = useState(domain.returnPath?.domain ?? '')
  const save = useMutation({
    mutationFn: (next: string | null) => setReturnPath(project.id, domain.id, next),
    onSuccess: (updated) => {
      setValue(updated.returnPath?.domain ?? '')
      queryClient.setQueryData(queryKey, (list) => list?.map((d) => (d.id === updated.id ? updated : d)))
    },
  })
  const error = save.error instanceof ApiError ? save.error : undefined
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate(value.trim() === '' ? null : value)
  }
  const headingId = `return-path-${domain.id}`
  return (
    <Stack gap="xs" component="section" aria-labelledby={headingId}>
      <Group gap="sm">
        <Title order={3} size="h5" id={headingId}>
          Return path (MAIL FROM)
        </Title>
        {domain.returnPath && (
          <Badge color={domain.returnPath.verified ? 'teal.9' : 'yellow.4'} autoContrast>
            {domain.returnPath.verified ? 'In use' : 'Waiting for its records'}
          </Badge>
        )}
      </Group>
      <form onSubmit={onSubmit} noValidate>
        <Group align="flex-start">
          <TextInput
            label="Return-path domain"
            description="A subdomain for bounces. It is used once a check finds its MX and SPF records."
            placeholder={`bounce.${domain.domain}`}
            value={value}
            onChange={(event) => setValue(event.currentTarget.value)}
            error={error?.forField('domain') ?? (error?.general ? error.message : undefined)}
            w={360}
          />
          <Button type="submit" mt={45} variant="default" loading={save.isPending && save.variables !== null}>
            Save return path
          </Button>
          {domain.returnPath && (
            <Button
              mt={45}
              variant="subtle"
              color="red.9"
              loading={save.isPending && save.variables === null}
              onClick={() => save.mutate(null)}
            >
              Stop using it
            </Button>
          )}
        </Group>
      </form>
      {!domain.returnPath && (
        <Text size="xs" c="dimmed">
          Without one, mail goes out with MAIL FROM at {domain.domain} itself (with SES, at Amazon's own domain).
        </Text>
      )}
    </Stack>
  )
}
