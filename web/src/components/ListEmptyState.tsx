import { Button } from '@mantine/core'
import type { ReactNode } from 'react'
import { Link } from 'react-router'
import { EmptyState } from './states'

/** An empty list: "none match" with a hint while filtered, else "none yet" with what they are and a way to create one. */
export function ListEmptyState({
  filtered,
  plural,
  filteredHint,
  create,
  children,
}: {
  filtered: boolean
  plural: string
  filteredHint: string
  create: { to: string; label: string }
  children: ReactNode
}) {
  if (filtered) {
    return <EmptyState title={`No ${plural} match`}>{filteredHint}</EmptyState>
  }
  return (
    <EmptyState
      title={`No ${plural} yet`}
      action={
        <Button component={Link} to={create.to} variant="light">
          {create.label}
        </Button>
      }
    >
      {children}
    </EmptyState>
  )
}
