// The import form (_import_form.html): files, a folder or a drop onto #drop-zone become the
// form's `files`, each with its relative path in a `paths` field (in the same order), and a
// drop submits the form. No inline script: the CSP allows this file only.
(function () {
  "use strict";
  const form = document.getElementById("import-form");
  if (!form) return;
  const input = document.getElementById("import-files");
  const folder = document.getElementById("import-folder");
  const zone = document.getElementById("drop-zone");
  const count = document.getElementById("import-count");

  function setFiles(entries) {
    const transfer = new DataTransfer();
    form.querySelectorAll("input[name=paths]").forEach((e) => e.remove());
    for (const entry of entries) {
      transfer.items.add(entry.file);
      const hidden = document.createElement("input");
      hidden.type = "hidden";
      hidden.name = "paths";
      hidden.value = entry.path;
      form.appendChild(hidden);
    }
    input.files = transfer.files;
    if (count) count.textContent = entries.length + " file(s) ready to import";
  }

  input.addEventListener("change", () => {
    setFiles(Array.from(input.files, (f) => ({ file: f, path: f.name })));
  });
  if (folder) {
    folder.addEventListener("change", () => {
      setFiles(Array.from(folder.files, (f) => ({ file: f, path: f.webkitRelativePath || f.name })));
    });
  }

  function read(entry, prefix, out) {
    if (entry.isFile) {
      return new Promise((ok, bad) => entry.file(ok, bad)).then((file) => {
        out.push({ file: file, path: prefix + file.name });
      });
    }
    const reader = entry.createReader();
    const next = () =>
      new Promise((ok, bad) => reader.readEntries(ok, bad)).then(async (batch) => {
        for (const child of batch) await read(child, prefix + entry.name + "/", out);
        if (batch.length) await next();
      });
    return next();
  }

  if (!zone) return;
  zone.addEventListener("dragover", (event) => {
    event.preventDefault();
    zone.classList.add("over");
  });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", async (event) => {
    event.preventDefault();
    zone.classList.remove("over");
    const transfer = event.dataTransfer;
    // entries are read now: a DataTransfer's items are gone once the handler awaits
    const entries = Array.from(transfer.items || [], (i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
    const files = Array.from(transfer.files || []);
    const out = [];
    if (entries.length && entries.every((e) => e)) {
      for (const entry of entries) await read(entry, "", out);
    } else {
      for (const file of files) out.push({ file: file, path: file.name });
    }
    if (!out.length) return;
    setFiles(out);
    form.requestSubmit();
  });
})();
