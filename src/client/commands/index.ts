import type { Command } from './command'
import { completion } from './completion'
import { deleteConfig } from './delete'
import { diff } from './diff'
import { discard } from './discard'
import { history } from './history'
import { invitations } from './invitations'
import { keys } from './keys'
import { list } from './list'
import { local } from './local'
import { log } from './log'
import { login } from './login'
import { logout } from './logout'
import { mcp } from './mcp'
import { pull } from './pull'
import { push } from './push'
import { resolve } from './resolve'
import { rollback } from './rollback'
import { status } from './status'
import { sync } from './sync'
import { team, teams } from './team'
import { trust } from './trust'
import { watch } from './watch'
import { whoami } from './whoami'

/**
 * Every command of the client, in the overview's order within its group:
 * a new command is a file here with one descriptor, added to this list
 * (docs/client.md).
 */
export const REGISTRY: readonly Command[] = [
	login,
	logout,
	whoami,
	keys,
	trust,
	status,
	push,
	pull,
	sync,
	resolve,
	discard,
	local,
	mcp,
	watch,
	diff,
	list,
	history,
	rollback,
	deleteConfig,
	team,
	teams,
	invitations,
	log,
	completion
]
