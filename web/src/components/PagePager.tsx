import { Group, Pagination } from '@mantine/core'

/** Numbered pages for page-style lists (`page`, `totalPages`); nothing when everything fits on one page. */
export function PagePager({
  page,
  totalPages,
  onChange,
}: {
  page: number
  totalPages: number
  onChange(page: number): void
}) {
  if (totalPages <= 1) return null
  return (
    <Group justify="flex-end" mt="sm">
      <Pagination
        total={totalPages}
        value={page}
        onChange={onChange}
        getControlProps={(control) => ({ 'aria-label': `${control} page` })}
      />
    </Group>
  )
}
