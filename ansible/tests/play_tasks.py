"""Prints the tasks of a playbook's plays in the order ansible runs them, as ansible itself compiles them (roles
and imports flattened, its implicit flushes of handlers included), as JSON: one object per play with its name and
tasks, each task with its role, name, action, the handlers it notifies, its conditions as written (those of the
imports around it included), and its arguments and loop templated with what ansible knows without a host (the play's
variables, the roles' defaults); what needs more stays as written.

Run by the interpreter of ansible-playbook (the tests' Python need not have ansible): play_tasks.py PLAYBOOK"""

from __future__ import annotations

import json
import sys

from ansible.errors import AnsibleError
from ansible.inventory.manager import InventoryManager
from ansible.parsing.dataloader import DataLoader
from ansible.playbook import Playbook
from ansible.playbook.block import Block
from ansible.template import Templar
from ansible.vars.manager import VariableManager


def _tasks(items):
    for item in items:
        if isinstance(item, Block):
            for part in (item.block, item.rescue, item.always):
                yield from _tasks(part or [])
        else:
            yield item


def _templated(templar: Templar, value):
    try:
        return templar.template(value, fail_on_undefined=False)
    except AnsibleError:
        return value


def main(path: str) -> None:
    loader = DataLoader()
    inventory = InventoryManager(loader=loader, sources=["localhost,"])
    variables = VariableManager(loader=loader, inventory=inventory)
    book = Playbook.load(path, variable_manager=variables, loader=loader)
    plays = []
    for play in book.get_plays():
        tasks = []
        for task in _tasks(play.compile()):
            templar = Templar(loader=loader, variables=variables.get_vars(play=play, task=task))
            notify = task.notify or []
            tasks.append({"role": task._role.get_name() if task._role else None, "name": task.name,
                          "action": task.action, "notify": [notify] if isinstance(notify, str) else notify,
                          "implicit": bool(task.implicit), "when": list(task.when or []), "args": _templated(templar, task.args),
                          "loop": _templated(templar, task.loop)})
        plays.append({"name": play.get_name(), "tasks": tasks})
    print(json.dumps(plays))


if __name__ == "__main__":
    main(sys.argv[1])
