// Save and check (issue 24): one action that saves a course notebook and then runs its self-check cell, so the
// check never grades stale content. The self-check cell stays the one place the check runs (it also works
// without this extension, on Colab); this only saves first, runs that cell, and saves its table afterwards.
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';
import { CommandToolbarButton, checkIcon } from '@jupyterlab/ui-components';

const COMMAND = 'ptlab:save-and-check';
const SELFCHECK_ID = 'selfcheck'; // autograder/authoring/template.py SELFCHECK_ID

function selfcheckIndex(notebook) {
  const cells = notebook.widgets;
  for (let i = cells.length - 1; i >= 0; i--) {
    const meta = cells[i].model.getMetadata('nbgrader');
    if (cells[i].model.type === 'code' && meta && meta.grade_id === SELFCHECK_ID) {
      return i;
    }
  }
  return -1;
}

function isSelfcheck(cell) {
  const meta = cell && cell.model.getMetadata('nbgrader');
  return !!meta && meta.grade_id === SELFCHECK_ID;
}

async function saveAndCheck(panel) {
  await panel.context.ready;
  const notebook = panel.content;
  const index = selfcheckIndex(notebook);
  if (index < 0) {
    return;
  }
  // The check reads the file on disk: the save must have landed before the cell runs.
  await panel.context.save();
  notebook.activeCellIndex = index;
  notebook.deselectAll();
  await notebook.scrollToItem(index, 'smart');
  await NotebookActions.run(notebook, panel.sessionContext);
}

// Running the check cell replaces its output, which marks the notebook modified although the learner changed
// nothing. When the notebook was saved as the check started, save again once it has shown its table.
function keepCleanAfterCheck(tracker) {
  const cleanAtStart = new WeakSet();
  NotebookActions.executionScheduled.connect((_, { notebook, cell }) => {
    const panel = tracker.find(p => p.content === notebook);
    if (panel && isSelfcheck(cell) && !panel.context.model.dirty) {
      cleanAtStart.add(cell.model);
    }
  });
  NotebookActions.executed.connect((_, { notebook, cell }) => {
    if (!isSelfcheck(cell) || !cleanAtStart.has(cell.model)) {
      return;
    }
    cleanAtStart.delete(cell.model);
    const panel = tracker.find(p => p.content === notebook);
    if (panel && panel.context.model.dirty && !panel.context.isDisposed) {
      void panel.context.save();
    }
  });
}

const plugin = {
  id: '@ptlab/selfcheck:plugin',
  description: 'Save and check: saves the notebook, then grades it with its self-check cell.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app, tracker) => {
    app.commands.addCommand(COMMAND, {
      label: 'Save and check',
      caption: 'Save this notebook, then grade it with the self-check (Ctrl+Shift+Enter)',
      icon: checkIcon,
      execute: () => {
        const panel = tracker.currentWidget;
        return panel ? saveAndCheck(panel) : undefined;
      }
    });
    app.docRegistry.addWidgetExtension('Notebook', {
      createNew: panel => {
        void panel.context.ready.then(() => {
          if (selfcheckIndex(panel.content) >= 0 && !panel.isDisposed) {
            const button = new CommandToolbarButton({
              commands: app.commands,
              id: COMMAND,
              label: 'Save and check'
            });
            button.addClass('ptlab-save-and-check');
            panel.toolbar.insertItem(10, 'ptlab-save-and-check', button);
          }
        });
      }
    });
    keepCleanAfterCheck(tracker);
  }
};

export default plugin;
