"""Prints the tasks of a playbook's plays in the order ansible runs them, as ansible itself compiles them (roles
and imports flattened, its implicit flushes of handlers included), as JSON: one object per play with its name and
tasks, each task with its role, name, action, arguments and the handlers it notifies.

Run by the interpreter of ansible-playbook (the tests' Python need not have ansible): play_tasks.py PLAYBOOK"""

from __future__ import annotations

import json
import sys

from ansible.inventory.manager import InventoryManager
from ansible.parsing.dataloader import DataLoader
from ansible.playbook import Playbook
from ansible.playbook.block import Block
from ansible.vars.manager import VariableManager


def _tasks(items):
    for item in items:
        if isinstance(item, Block):
            for part in (item.block, item.rescue, item.always):
                yield from _tasks(part or [])
        else:
            notify = item.notify or []
            yield {"role": item._role.get_name() if item._role else None, "name": item.name, "action": item.action,
                   "args": item.args, "notify": [notify] if isinstance(notify, str) else notify,
                   "implicit": bool(item.implicit)}


def main(path: str) -> None:
    loader = DataLoader()
    variables = VariableManager(loader=loader, inventory=InventoryManager(loader=loader, sources=["localhost,"]))
    book = Playbook.load(path, variable_manager=variables, loader=loader)
    print(json.dumps([{"name": play.get_name(), "tasks": list(_tasks(play.compile()))} for play in book.get_plays()]))


if __name__ == "__main__":
    main(sys.argv[1])
