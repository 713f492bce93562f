import { z } from 'zod'
import { DEVICE_MAX, KEY_SCOPES } from '../constants'
import { codePointLength, FORMAT_CHARACTERS_REFUSED, hasControlCharacters, hasFormatCharacters } from '../text'

/** A device's name, as a login gives it and a rename changes it (docs/api.md): the same rules for both. */
export const DeviceName = z
	.string()
	.trim()
	// Stored composed (NFC): "Café" typed two ways is one name (docs/api.md).
	.normalize('NFC')
	.min(1, 'Name this device.')
	.max(DEVICE_MAX * 2)
	.refine((device) => codePointLength(device) <= DEVICE_MAX, `At most ${DEVICE_MAX} characters.`)
	.refine((device) => !hasControlCharacters(device), 'Control characters are not allowed.')
	.refine((device) => !hasFormatCharacters(device), FORMAT_CHARACTERS_REFUSED)

export const LoginBody = z.object({
	login: z.string().trim().min(1, 'Give an email or username.').max(320).describe('email or username'),
	password: z.string().min(1, 'Give a password.').max(1024),
	device: DeviceName.describe('a name for this machine; one active key per device'),
	scope: z
		.enum(KEY_SCOPES, { error: `Must be one of ${KEY_SCOPES.join(', ')}.` })
		.default('read-write')
		.describe('read-only: a key that reads and streams but never writes (for CI)')
})
export type LoginBody = z.infer<typeof LoginBody>

export const IssuedKey = z.object({
	apiKey: z.string().describe('shown once: cs_ followed by 64 hex characters'),
	id: z.uuid(),
	device: z.string(),
	createdAt: z.iso.datetime()
})
export type IssuedKey = z.infer<typeof IssuedKey>

export const KeyView = z.object({
	id: z.uuid(),
	device: z.string(),
	createdAt: z.iso.datetime(),
	lastUsedAt: z.iso.datetime().nullable(),
	current: z.boolean().describe('true for the key this request was made with'),
	scope: z.enum(KEY_SCOPES).describe('read-only keys read and stream but never write')
})
export type KeyView = z.infer<typeof KeyView>

export const KeyIdParams = z.object({ id: z.guid() })

/** PATCH /api/keys/:id: the key's device gets another name (docs/api.md). */
export const RenameKeyBody = z.object({ name: DeviceName.describe("the device's new name; one active key per device") })
export type RenameKeyBody = z.infer<typeof RenameKeyBody>

export const Me = z.object({ email: z.string(), username: z.string() })
export type Me = z.infer<typeof Me>
