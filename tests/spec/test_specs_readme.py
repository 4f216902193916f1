"""specs/README.md, the page a TLA+ user opens first, cannot fall behind the spec folders:
it has a section for every folder that names every item of the manifest's ``leaves_out``,
the base config's exact TLC command (the ``.cfg``'s first line), every liveness config (the
base one ``MC<Module>Liveness`` is required) and links the folder's README."""
from __future__ import annotations

from groupcheck.spec import fairness, manifest, tlc_config


def test_the_specs_readme_names_every_folder_what_it_leaves_out_and_its_tlc_command():
    text = (manifest.SPECS / "README.md").read_text()
    protocols = manifest.folders()
    assert len(protocols) == 4
    for name in protocols:
        bundle = manifest.load(name)
        folder = bundle.folder.name
        assert f"\n## {folder}: " in text, f"specs/README.md has no section for {folder}"
        section = text.split(f"\n## {folder}: ", 1)[1].split("\n## ", 1)[0]
        items = [item for kind in ("actions", "properties", "variants") for item in bundle.leaves_out.get(kind, {})]
        assert items, folder
        missing = [item for item in items if f"`{item}`" not in section]
        assert not missing, f"specs/README.md's {folder} section does not name {missing}"
        first = (bundle.folder / f"MC{bundle.module}.cfg").read_text().splitlines()[0]
        assert f"`{tlc_config.tlc_command(first)}`" in section, folder
        assert f"]({folder}/README.md)" in section, folder
        liveness = [lc.name for lc in fairness.configs(bundle)]           # every liveness config, named
        assert f"MC{bundle.module}Liveness" in liveness, folder
        assert all(f"`{name}`" in section.split("| Liveness |", 1)[1].split("\n", 1)[0] for name in liveness), folder
