import { z } from 'zod'
import { PASSWORD_MIN, PLANS, USERNAME_PATTERN } from '../constants'

export const Email = z.email('Give a valid email address.').max(320)
export const Username = z
	.string()
	.regex(USERNAME_PATTERN, 'Usernames are 1-64 letters, digits, dots, dashes or underscores.')
export const Password = z
	.string()
	.min(PASSWORD_MIN, `Passwords are at least ${PASSWORD_MIN} characters.`)
	.max(1024)
	.refine((password) => password.trim() !== '', 'A password cannot be only spaces.')
export const PlanName = z.enum(PLANS, { error: `Plans are ${PLANS.join(', ')}.` })

export const NewUserInput = z.object({
	email: Email,
	username: Username,
	password: Password.optional(),
	plan: PlanName
})
export type NewUserInput = z.infer<typeof NewUserInput>
