import { resolve } from 'node:path'
import packageJson from '../../package.json' with { type: 'json' }
import { sourceCommit } from '../../src/shared/build'
import { SCHEMA } from '../../src/server/build-info'

/** What a build made from this checkout says it is (docs/operations.md): the binaries under test were built from it. */
const ROOT = resolve(import.meta.dir, '..', '..')
export const checkoutCommit = () => sourceCommit(ROOT)
export const serverVersionLine = () =>
	`cfgsync-server ${packageJson.version} (commit ${checkoutCommit()}, schema ${SCHEMA})\n`
export const clientVersionLine = () => `cfgsync ${packageJson.version} (commit ${checkoutCommit()})\n`
