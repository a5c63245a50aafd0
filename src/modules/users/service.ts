import { hash, verify } from '@node-rs/argon2'
import { eq } from 'drizzle-orm'
import type { Executor } from '../../db/client.js'
import { users } from '../../db/schema/index.js'
import { AppError } from '../../errors.js'
import { normalizeEmail } from '../../mail/address.js'
import type { Credentials, UserView } from './schemas.js'

const userColumns = { id: users.id, email: users.email, emailVerified: users.emailVerified, createdAt: users.createdAt }

// Verified when no user matches, so a login takes as long for an unknown email as for a wrong password.
const decoyHash = '$argon2id$v=19$m=19456,t=2,p=1$GJQLvkQAx06VdUnBHx6BMA$KeAxlQU2v7dfQlxjMcDR5U6PwAPl9ilnN2yeB7kxx5o'

export async function createUser(
  db: Executor,
  input: Credentials,
  options: { emailVerified?: boolean } = {},
): Promise<UserView> {
  const passwordHash = await hash(input.password)
  const [user] = await db
    .insert(users)
    .values({ email: normalizeEmail(input.email), passwordHash, emailVerified: options.emailVerified ?? false })
    .onConflictDoNothing({ target: users.email })
    .returning(userColumns)
  if (!user) throw new AppError('CONFLICT', 'An account with this email already exists')
  return user
}

export async function authenticateUser(db: Executor, email: string, password: string): Promise<UserView> {
  const [user] = await db
    .select({ ...userColumns, passwordHash: users.passwordHash })
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
  const valid = await verify(user?.passwordHash ?? decoyHash, password)
  if (!user || !valid) throw new AppError('UNAUTHORIZED', 'Invalid email or password')
  const { passwordHash: _, ...view } = user
  return view
}

export async function getUser(db: Executor, userId: string): Promise<UserView> {
  const [user] = await db.select(userColumns).from(users).where(eq(users.id, userId))
  if (!user) throw new AppError('UNAUTHORIZED', 'Log in first')
  return user
}
