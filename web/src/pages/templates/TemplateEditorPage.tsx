import { Anchor, Button, Grid, Group, Select, Stack, TextInput } from '@mantine/core'
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import type { EditorView } from '@uiw/react-codemirror'
import { type FormEvent, useRef, useState } from 'react'
import { Link, useNavigate, useParams } from 'react-router'
import { ApiError } from '../../api/client'
import { useProject } from '../../api/project-context'
import { createTemplate, duplicateTemplate, templateQueries, updateTemplate } from '../../api/templates'
import type { Template, TemplateInput, TemplateType } from '../../api/types'
import { notifySuccess } from '../../components/notify'
import { ErrorAlert, PageHeader, QueryState } from '../../components/states'
import { BodyEditor } from './BodyEditor'
import { ImageUploadButton } from './ImageUploadButton'
import { PreviewPanel } from './PreviewPanel'
import { TemplateChecks } from './TemplateChecks'
import { UsagePanel } from './UsagePanel'
import { syntaxProblemOf, useTemplatePreview } from './use-template-preview'
import { VariableHelp } from './VariableHelp'

type Draft = {
  name: string
  subject: string
  body: string
  from: string
  fromName: string
  replyTo: string
  type: TemplateType
}

const blank: Draft = {
  name: '',
  subject: '',
  body: '<h1>Hello {{name ?? "there"}}</h1>\n<p>Write your email here.</p>',
  from: '',
  fromName: '',
  replyTo: '',
  type: 'TRANSACTIONAL',
}

function draftOf(template: Template): Draft {
  return {
    name: template.name,
    subject: template.subject,
    body: template.body,
    from: template.from,
    fromName: template.fromName ?? '',
    replyTo: template.replyTo ?? '',
    type: template.type,
  }
}

export function TemplateEditorPage() {
  const { id = 'new' } = useParams()
  const { project } = useProject()
  const template = useQuery({
    ...templateQueries.detail(project.id, id),
    enabled: id !== 'new',
  })
  return (
    <>
      <Anchor component={Link} to="/templates" size="sm">
        ← All templates
      </Anchor>
      {id === 'new' ? (
        <Editor initial={blank} />
      ) : (
        <QueryState query={template} label="Loading the template">
          {(loaded) => <Editor key={loaded.id} initial={draftOf(loaded)} id={loaded.id} />}
        </QueryState>
      )}
    </>
  )
}

function Editor({ initial, id }: { initial: Draft; id?: string }) {
  const { project } = useProject()
  const [draft, setDraft] = useState(initial)
  const [previewContactId, setPreviewContactId] = useState<string | null>(null)
  const preview = useTemplatePreview(draft.subject, draft.body, previewContactId)
  const view = useRef<EditorView>(undefined)
  const navigate = useNavigate()
  const queryClient = useQueryClient()
  const set = (field: keyof Draft) => (value: string) => setDraft((current) => ({ ...current, [field]: value }))

  const save = useMutation({
    mutationFn: (body: TemplateInput) => (id ? updateTemplate(project.id, id, body) : createTemplate(project.id, body)),
    onSuccess: async (saved) => {
      queryClient.setQueryData(templateQueries.detail(project.id, saved.id).queryKey, saved)
      await queryClient.invalidateQueries({ queryKey: templateQueries.all(project.id) })
      await queryClient.invalidateQueries({ queryKey: templateQueries.check(project.id, saved.id).queryKey })
      notifySuccess(`Saved “${saved.name}”`)
      if (!id) navigate(`/templates/${saved.id}`, { replace: true })
    },
  })
  const duplicate = useMutation({
    mutationFn: () => duplicateTemplate(project.id, id ?? ''),
    onSuccess: async (copy) => {
      await queryClient.invalidateQueries({ queryKey: templateQueries.all(project.id) })
      notifySuccess(`Created “${copy.name}”`)
      navigate(`/templates/${copy.id}`)
    },
  })
  const error = save.error instanceof ApiError ? save.error : undefined
  // The live check wins once it has answered for the current draft; until then, the last save's answer.
  const settled = preview.isFetched && !preview.isPlaceholderData
  const problemOf = (field: 'subject' | 'body') =>
    preview.isError || !settled
      ? (syntaxProblemOf(preview.error, field) ?? syntaxProblemOf(save.error, field))
      : undefined
  const bodyProblem = problemOf('body')
  const subjectProblem = problemOf('subject')
  const insert = (text: string) => {
    const editor = view.current
    if (!editor) return
    editor.dispatch(editor.state.replaceSelection(text))
    editor.focus()
  }
  const onSubmit = (event: FormEvent) => {
    event.preventDefault()
    save.mutate({
      name: draft.name,
      subject: draft.subject,
      body: draft.body,
      from: draft.from,
      fromName: draft.fromName || null,
      replyTo: draft.replyTo || null,
      type: draft.type,
    })
  }

  return (
    <form onSubmit={onSubmit} noValidate>
      <Stack mt="sm" gap="md">
        <PageHeader title={id ? `Edit ${initial.name}` : 'New template'}>
          {id && (
            <Button variant="default" loading={duplicate.isPending} onClick={() => duplicate.mutate()}>
              Duplicate
            </Button>
          )}
          <Button type="submit" loading={save.isPending}>
            {id ? 'Save changes' : 'Create template'}
          </Button>
        </PageHeader>
        {save.isError && (!error || error.general) && <ErrorAlert error={save.error} title="Not saved" />}
        {duplicate.isError && <ErrorAlert error={duplicate.error} title="Not duplicated" />}
        <Grid gap="lg">
          <Grid.Col span={{ base: 12, md: 6 }}>
            <Stack gap="sm">
              <TextInput
                label="Name"
                required
                value={draft.name}
                onChange={(e) => set('name')(e.currentTarget.value)}
                error={error?.forField('name')}
              />
              <TextInput
                label="Subject"
                required
                value={draft.subject}
                onChange={(e) => set('subject')(e.currentTarget.value)}
                error={subjectProblem?.message ?? error?.forField('subject')}
              />
              <Group grow align="flex-start">
                <TextInput
                  label="From address"
                  type="email"
                  required
                  placeholder="hello@example.com"
                  value={draft.from}
                  onChange={(e) => set('from')(e.currentTarget.value)}
                  error={error?.forField('from')}
                />
                <TextInput
                  label="From name"
                  value={draft.fromName}
                  onChange={(e) => set('fromName')(e.currentTarget.value)}
                  error={error?.forField('fromName')}
                />
              </Group>
              <Group grow align="flex-start">
                <TextInput
                  label="Reply-to"
                  type="email"
                  value={draft.replyTo}
                  onChange={(e) => set('replyTo')(e.currentTarget.value)}
                  error={error?.forField('replyTo')}
                />
                <Select
                  label="Type"
                  value={draft.type}
                  allowDeselect={false}
                  onChange={(value) => value && set('type')(value)}
                  data={[
                    { value: 'TRANSACTIONAL', label: 'Transactional' },
                    { value: 'MARKETING', label: 'Marketing' },
                    { value: 'HEADLESS', label: 'Headless' },
                  ]}
                  error={error?.forField('type')}
                />
              </Group>
              <BodyEditor
                value={draft.body}
                onChange={set('body')}
                problem={bodyProblem}
                error={bodyProblem?.message ?? error?.forField('body')}
                onView={(created) => {
                  view.current = created
                }}
              />
              <Group gap="xs">
                <ImageUploadButton onUploaded={insert} />
              </Group>
              <VariableHelp onInsert={insert} />
              {id && <TemplateChecks id={id} />}
              {id && <UsagePanel id={id} />}
            </Stack>
          </Grid.Col>
          <Grid.Col span={{ base: 12, md: 6 }}>
            <PreviewPanel
              preview={preview}
              title="Preview of the template body"
              boilerplate={id ? undefined : blank.body}
              contactId={previewContactId}
              onContactChange={setPreviewContactId}
            />
          </Grid.Col>
        </Grid>
      </Stack>
    </form>
  )
}
