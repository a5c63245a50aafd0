import { useLayoutEffect, useRef } from 'react'
import { useLocation } from 'react-router'

/**
 * When a move to another page removes the focused element (a link or button in the page left behind), focus would
 * fall back to the document's body: the next Tab starts over from the top, and a screen reader says nothing of the
 * new page. Focus goes to the element with this id instead (the main region), where the new page begins. Focus that
 * is still somewhere, as on a navigation link, stays. A layout effect: focus moves in the commit that shows the new
 * page, so no one (a keyboard user, a screen reader, a test) sees the page without it.
 */
export function useFocusAfterNavigation(targetId: string): void {
  const { pathname } = useLocation()
  const previous = useRef(pathname)
  useLayoutEffect(() => {
    if (previous.current === pathname) return
    previous.current = pathname
    if (document.activeElement === null || document.activeElement === document.body) {
      document.getElementById(targetId)?.focus({ preventScroll: true })
    }
  }, [pathname, targetId])
}
