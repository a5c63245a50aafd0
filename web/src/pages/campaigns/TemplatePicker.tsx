import { Select } from '@mantine/core'
import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useProject } from '../../api/project-context'
import { templateQueries } from '../../api/templates'

type Content = { subject: string; body: string; from: string; fromName: string; replyTo: string }

/** Starts a campaign from a template: its subject, body and sender are copied into the form, to edit there. */
export function TemplatePicker({ onPick }: { onPick(content: Content): void }) {
  const { project } = useProject()
  const [chosen, setChosen] = useState<string | null>(null)
  const templates = useQuery(templateQueries.list(project.id, { pageSize: 100, sort: 'updatedAt' }))
  const list = templates.data?.data ?? []
  return (
    <Select
      label="Start from a template"
      description="Copies its subject, body and sender into this campaign."
      placeholder={templates.isPending ? 'Loading…' : list.length ? 'Choose a template' : 'No templates yet'}
      searchable
      clearable
      value={chosen}
      data={list.map((template) => ({ value: template.id, label: template.name }))}
      onChange={(id) => {
        setChosen(id)
        const template = list.find((item) => item.id === id)
        if (!template) return
        onPick({
          subject: template.subject,
          body: template.body,
          from: template.from,
          fromName: template.fromName ?? '',
          replyTo: template.replyTo ?? '',
        })
      }}
    />
  )
}
