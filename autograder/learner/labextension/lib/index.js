// Save and check (issues 24, 36): one action that saves a course notebook and then runs its check cell, so the
// check never grades stale content. The check cell stays the one place the check runs (it also works without
// this extension, on Colab); this only saves first, runs that cell, and saves its table afterwards.
//
// It also keeps the "File Changed" dialog of JupyterLab out of the way of a learner (issue 36): saves of one
// notebook run one at a time (Ctrl+S racing the 10 s autosave of the course made the second save find the file
// of the first and ask Revert or Overwrite), and a file a reset rewrote is followed by the open view instead.
import { INotebookTracker, NotebookActions } from '@jupyterlab/notebook';
import { CommandToolbarButton, checkIcon } from '@jupyterlab/ui-components';

const COMMAND = 'ptlab:save-and-check';
// The cells that check: a course notebook's self-check (autograder/authoring/template.py SELFCHECK_ID), an
// interview or a review, and the finish of an interview (autograder/learner/compose.py CHECK_ID, FINISH_ID).
const SELFCHECK_ID = 'selfcheck';
const CHECK_ID = 'composed_check';
const FINISH_ID = 'composed_finish';
const FOLLOW_EVERY_MS = 2000; // how soon an open notebook shows a reset done from a terminal

function gradeId(cell) {
  const meta = cell && cell.model.getMetadata('nbgrader');
  return meta ? meta.grade_id : undefined;
}

function isCheck(cell) {
  return [SELFCHECK_ID, CHECK_ID, FINISH_ID].includes(gradeId(cell));
}

// The cell Save and check runs: the self-check, or an interview's check (never its finish).
function checkIndex(notebook) {
  const cells = notebook.widgets;
  for (let i = cells.length - 1; i >= 0; i--) {
    const id = gradeId(cells[i]);
    if (cells[i].model.type === 'code' && (id === SELFCHECK_ID || id === CHECK_ID)) {
      return i;
    }
  }
  return -1;
}

async function saveAndCheck(panel) {
  await panel.context.ready;
  const notebook = panel.content;
  const index = checkIndex(notebook);
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

// The answer cells as the editor holds them, told to the kernel just before a check cell runs (a silent request,
// sent ahead of the cell's own): the check compares them with the file it graded and names the cells whose
// unsaved edits it did not grade (autograder/learner/unsaved.py).
function tellEditorState(panel) {
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  if (!kernel) {
    return;
  }
  const answers = {};
  for (const cell of panel.content.widgets) {
    const meta = cell.model.getMetadata('nbgrader');
    if (cell.model.type === 'code' && meta && meta.solution && meta.grade_id) {
      answers[meta.grade_id] = cell.model.sharedModel.getSource();
    }
  }
  // A JSON string literal is a Python string literal too.
  const state = JSON.stringify(JSON.stringify({ answers }));
  const code =
    "__import__('importlib.util').util.find_spec('autograder') and " +
    `__import__('autograder.learner.unsaved', fromlist=['remember_editor']).remember_editor(${state})`;
  kernel.requestExecute({ code, silent: true, store_history: false });
}

// Running a check cell replaces its output, which marks the notebook modified although the learner changed
// nothing. When the notebook was saved as the check started, save again once it has shown its table.
function watchChecks(tracker) {
  const cleanAtStart = new WeakSet();
  NotebookActions.executionScheduled.connect((_, { notebook, cell }) => {
    const panel = tracker.find(p => p.content === notebook);
    if (!panel || !isCheck(cell)) {
      return;
    }
    tellEditorState(panel);
    if (!panel.context.model.dirty) {
      cleanAtStart.add(cell.model);
    }
  });
  NotebookActions.executed.connect((_, { notebook, cell }) => {
    if (!isCheck(cell) || !cleanAtStart.has(cell.model)) {
      return;
    }
    cleanAtStart.delete(cell.model);
    const panel = tracker.find(p => p.content === notebook);
    if (panel && panel.context.model.dirty && !panel.context.isDisposed) {
      void panel.context.save();
    }
  });
}

function sameOnDisk(known, disk) {
  if (known.hash && disk.hash) {
    return known.hash === disk.hash;
  }
  return known.last_modified === disk.last_modified;
}

// A cell's key across a reload: its nbgrader id where it has one (what a reset names), else its cell id.
function cellKey(cell) {
  const meta = cell.getMetadata ? cell.getMetadata('nbgrader') : undefined;
  return meta && meta.grade_id ? `grade:${meta.grade_id}` : `id:${cell.id}`;
}

// When the file on disk is not the one this view last loaded or saved: a view with no unsaved edit loads it
// (nothing is lost); a view with unsaved edits loads it when a reset wrote it (`python -m autograder reset`
// marks the cells it blanked in the metadata of the notebook) and puts the other unsaved edits back on top.
// Anything else is a real conflict, left to JupyterLab's own dialog.
async function followDisk(panel, drive) {
  const context = panel.context;
  if (context.isDisposed || !context.isReady) {
    return;
  }
  const known = context.contentsModel;
  if (!known) {
    return;
  }
  const disk = await drive.get(context.path, { content: false, hash: true });
  if (context.isDisposed || sameOnDisk(known, disk)) {
    return;
  }
  const full = await drive.get(context.path, { content: true, type: 'notebook', format: 'json', hash: true });
  if (context.isDisposed || !full.content) {
    return;
  }
  // From here to the load, nothing waits: the learner's edits are read and the file loaded in one turn of the
  // browser's event loop, so a keystroke lands either before (and is kept) or after (on the loaded notebook).
  // JupyterLab's own revert fetches the file after it is asked, and loses what is typed while it waits.
  const model = context.model;
  const edits = new Map();
  if (model.dirty) {
    const marker = full.content.metadata && full.content.metadata.ptlab;
    const reset = marker && marker.reset;
    // A reset since this view last loaded or saved the file (an older reset's mark stays in the metadata).
    if (!reset || !Array.isArray(reset.cells) || !(reset.at * 1000 > Date.parse(known.last_modified) - 1000)) {
      return;
    }
    const blanked = new Set(reset.cells.map(id => `grade:${id}`));
    for (const cell of model.sharedModel.cells) {
      if (!blanked.has(cellKey(cell))) {
        edits.set(cellKey(cell), cell.getSource());
      }
    }
  }
  if (typeof context._updateContentsModel !== 'function') {
    return; // a JupyterLab whose revert is built otherwise: its own dialog decides, and nothing is lost
  }
  loadInPlace(panel, full, edits);
}

// Load the fetched file into the view, put `edits` (cell key -> source) back on top, and leave the learner where
// they were: the same cell active, and typing in it again only when they were typing in this notebook (a reset
// typed in a terminal keeps the focus in the terminal).
function loadInPlace(panel, full, edits) {
  const context = panel.context;
  const model = context.model;
  const notebook = panel.content;
  const active = notebook.activeCellIndex;
  const typing = notebook.mode === 'edit' && notebook.node.contains(document.activeElement);
  // As JupyterLab loads a notebook it has fetched when it reverts (Context._revert): the model from the file,
  // then the stamp of the file, so that the next save does not take it for a change made by someone else.
  model.fromJSON(full.content);
  context._updateContentsModel(full);
  let kept = false;
  for (const cell of model.sharedModel.cells) {
    const key = cellKey(cell);
    if (edits.has(key) && edits.get(key) !== cell.getSource()) {
      cell.setSource(edits.get(key));
      kept = true;
    }
  }
  model.dirty = kept;
  // Loaded cells start as the first one was left: a Markdown cell shown as its source. Show them rendered.
  for (const cell of notebook.widgets) {
    if (cell.model.type === 'markdown') {
      cell.rendered = true;
    }
  }
  if (active >= 0 && active < notebook.widgets.length) {
    notebook.activeCellIndex = active;
    if (typing) {
      notebook.mode = 'edit';
    }
  }
}

// One save (and one look at the disk) at a time per notebook, each after the one before. `follow`: whether the
// view follows its file on disk (a course notebook, which a reset may rewrite).
function serialize(panel, drive, follow) {
  const context = panel.context;
  const save = context.save.bind(context);
  let queue = Promise.resolve();
  const inTurn = step => {
    const done = queue.then(step);
    queue = done.catch(() => undefined);
    return done;
  };
  context.save = () =>
    inTurn(async () => {
      await context.ready;
      if (follow()) {
        await followDisk(panel, drive).catch(() => undefined);
      }
      return save();
    });
  const timer = setInterval(() => {
    if (follow()) {
      void inTurn(() => followDisk(panel, drive)).catch(() => undefined);
    }
  }, FOLLOW_EVERY_MS);
  context.disposed.connect(() => clearInterval(timer));
}

const plugin = {
  id: '@ptlab/selfcheck:plugin',
  description: 'Save and check: saves the notebook, then grades it with its check cell.',
  autoStart: true,
  requires: [INotebookTracker],
  activate: (app, tracker) => {
    app.commands.addCommand(COMMAND, {
      label: 'Save and check',
      // JupyterLab adds the shortcut (Ctrl+Shift+Enter) to the tooltip itself.
      caption: 'Save this notebook, then grade it',
      icon: checkIcon,
      execute: () => {
        const panel = tracker.currentWidget;
        return panel ? saveAndCheck(panel) : undefined;
      }
    });
    app.docRegistry.addWidgetExtension('Notebook', {
      createNew: panel => {
        serialize(panel, app.serviceManager.contents,
          () => !panel.isDisposed && checkIndex(panel.content) >= 0);
        void panel.context.ready.then(() => {
          if (checkIndex(panel.content) >= 0 && !panel.isDisposed) {
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
    watchChecks(tracker);
  }
};

export default plugin;
