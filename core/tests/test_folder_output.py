"""Where ``-o`` puts a model that converts to a folder (a Hugging Face checkpoint's GenAI folder)."""

from __future__ import annotations

from pathlib import Path

import pytest
from irconv.pipeline.folder import ModelFolder, folder_output

FOLDER = ModelFolder(model_file="openvino_model.xml", write=lambda folder, ctx: None)


@pytest.mark.parametrize("given", ["out", "out/", "nested/out.d"])
def test_a_path_that_is_not_an_xml_file_is_the_folder(given: str, tmp_path: Path) -> None:
    target = folder_output(str(tmp_path / given), FOLDER, tmp_path / "default")
    assert target == tmp_path / given.rstrip("/") / "openvino_model.xml"


def test_an_xml_path_is_taken_as_given(tmp_path: Path) -> None:
    assert folder_output(str(tmp_path / "model.xml"), FOLDER, tmp_path) == tmp_path / "model.xml"


def test_an_existing_directory_named_like_an_xml_file_is_a_folder(tmp_path: Path) -> None:
    (tmp_path / "odd.xml").mkdir()
    assert folder_output(str(tmp_path / "odd.xml"), FOLDER, tmp_path) == tmp_path / "odd.xml" / "openvino_model.xml"


def test_no_path_gives_the_default_folder(tmp_path: Path) -> None:
    assert folder_output(None, FOLDER, tmp_path / "m-openvino") == tmp_path / "m-openvino" / "openvino_model.xml"
