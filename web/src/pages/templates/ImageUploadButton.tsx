import { Button, FileButton } from '@mantine/core'
import { useMutation } from '@tanstack/react-query'
import { useProject } from '../../api/project-context'
import { uploadImage } from '../../api/uploads'
import { ErrorAlert } from '../../components/states'

const escapeAttribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;')

/** Uploads an image (POST /uploads/image) and hands back an <img> tag with its public URL and size. */
export function ImageUploadButton({ onUploaded }: { onUploaded(tag: string): void }) {
  const { project } = useProject()
  const upload = useMutation({
    mutationFn: (file: File) => uploadImage(project.id, file),
    onSuccess: (image) => {
      const alt = image.filename.replace(/\.[^.]+$/, '')
      onUploaded(
        `<img src="${escapeAttribute(image.url)}" alt="${escapeAttribute(alt)}" width="${image.width}" height="${image.height}" />`,
      )
    },
  })
  return (
    <>
      <FileButton onChange={(file) => file && upload.mutate(file)} accept="image/png,image/jpeg,image/gif,image/webp">
        {(props) => (
          <Button {...props} size="xs" variant="default" loading={upload.isPending}>
            Insert image…
          </Button>
        )}
      </FileButton>
      {upload.isError && <ErrorAlert error={upload.error} title="The image was not uploaded" />}
    </>
  )
}
