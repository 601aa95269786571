// The React part of the widget zoo: MUI (select, autocomplete, data grid), react-select and
// Radix's dropdown menu, bundled by zoo.mjs with esbuild (from this folder's pinned packages)
// into one script that pages/react.html loads.
import React, { useState } from "react";
import { createRoot } from "react-dom/client";
import { Select as MuiSelect, MenuItem, FormControl, InputLabel, Autocomplete, TextField } from "@mui/material";
import { DataGrid } from "@mui/x-data-grid";
import ReactSelect from "react-select";
import * as DropdownMenu from "@radix-ui/react-dropdown-menu";

const cities = ["Amsterdam", "Brussels", "Copenhagen", "Dublin", "Edinburgh"];
const rows = Array.from({ length: 30 }, (_, i) => ({ id: i + 1, item: "Item " + (i + 1), stock: (i * 37) % 100 }));

function App() {
  const [age, setAge] = useState("");
  const [city, setCity] = useState(null);
  const [flavour, setFlavour] = useState(null);
  const [action, setAction] = useState("none");
  const [page, setPage] = useState({ page: 0, pageSize: 10 });
  return (
    <div style={{ padding: 16, maxWidth: 720 }}>
      <h1>Preferences</h1>
      <section>
        <FormControl style={{ minWidth: 200 }}>
          <InputLabel id="age-label">Age group</InputLabel>
          <MuiSelect labelId="age-label" value={age} label="Age group" onChange={(e) => setAge(e.target.value)}>
            <MenuItem value="young">Under 30</MenuItem>
            <MenuItem value="middle">30 to 60</MenuItem>
            <MenuItem value="senior">Over 60</MenuItem>
          </MuiSelect>
        </FormControl>
        <p>age: {age || "none"}</p>
      </section>
      <section>
        <Autocomplete options={cities} value={city} onChange={(e, v) => setCity(v)} style={{ width: 260 }}
          renderInput={(params) => <TextField {...params} label="Home city" />} />
        <p>city: {city || "none"}</p>
      </section>
      <section>
        <label htmlFor="flavour-input">Flavour</label>
        <ReactSelect inputId="flavour-input" options={[{ value: "vanilla", label: "Vanilla" }, { value: "mint", label: "Mint" }, { value: "mango", label: "Mango" }]}
          onChange={(o) => setFlavour(o && o.value)} placeholder="Choose a flavour" />
        <p>flavour: {flavour || "none"}</p>
      </section>
      <section>
        <DropdownMenu.Root>
          <DropdownMenu.Trigger asChild><button>Document options</button></DropdownMenu.Trigger>
          <DropdownMenu.Portal>
            <DropdownMenu.Content style={{ background: "white", border: "1px solid #ccc", padding: 4 }}>
              <DropdownMenu.Item onSelect={() => setAction("print")}>Print</DropdownMenu.Item>
              <DropdownMenu.Item onSelect={() => setAction("share")}>Share</DropdownMenu.Item>
              <DropdownMenu.Item onSelect={() => setAction("delete")}>Delete</DropdownMenu.Item>
            </DropdownMenu.Content>
          </DropdownMenu.Portal>
        </DropdownMenu.Root>
        <p>document: {action}</p>
      </section>
      <section style={{ height: 520 }}>
        <DataGrid rows={rows} columns={[{ field: "item", headerName: "Item", width: 160 }, { field: "stock", headerName: "Stock", width: 120 }]}
          paginationModel={page} onPaginationModelChange={setPage} pageSizeOptions={[10]} />
        <p>grid page: {page.page + 1}</p>
      </section>
    </div>
  );
}

createRoot(document.getElementById("root")).render(<App />);
