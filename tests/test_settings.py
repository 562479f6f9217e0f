"""The settings module: each environment variable read at call time, its default otherwise."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.paths import REPO

from stations_generator import settings
from stations_generator.errors import InputError


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in (
        settings.CACHE_DIR_ENV,
        settings.EXTRACT_CACHE_DIR_ENV,
        settings.EXTRACT_CACHE_MB_ENV,
        settings.NO_CACHE_ENV,
        settings.NOMINATIM_URL_ENV,
        settings.LOCATIONS_ON_DISK_MB_ENV,
    ):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_user_cache_dir_per_platform(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.setattr(settings.sys, "platform", "linux")
    clean_env.setenv("HOME", str(tmp_path / "home"))
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert settings.overpass_cache_dir() == tmp_path / "xdg" / "stations-generator" / "overpass"
    clean_env.setenv("XDG_CACHE_HOME", "relative/ignored")
    home_cache = tmp_path / "home" / ".cache" / "stations-generator"
    assert settings.overpass_cache_dir() == home_cache / "overpass"
    assert settings.nominatim_cache_dir() == home_cache / "nominatim"
    clean_env.setattr(settings.sys, "platform", "win32")
    clean_env.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert settings.user_cache_dir() == tmp_path / "local" / "stations-generator"
    clean_env.delenv("LOCALAPPDATA")
    assert settings.user_cache_dir() == (
        tmp_path / "home" / "AppData" / "Local" / "stations-generator"
    )


def test_extract_cache_dir_precedence(clean_env: pytest.MonkeyPatch, tmp_path: Path) -> None:
    clean_env.setattr(settings.sys, "platform", "linux")
    clean_env.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert settings.cache_dir() is None
    assert settings.extract_cache_dir() == (
        tmp_path / "xdg" / "stations-generator" / "overpass" / "extracts"
    )
    clean_env.setenv(settings.CACHE_DIR_ENV, str(tmp_path / "cache"))
    assert settings.cache_dir() == tmp_path / "cache"
    assert settings.extract_cache_dir() == tmp_path / "cache" / "extracts"
    clean_env.setenv(settings.EXTRACT_CACHE_DIR_ENV, str(tmp_path / "own"))
    assert settings.extract_cache_dir() == tmp_path / "own"


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, settings.DEFAULT_EXTRACT_CACHE_MB), ("", 4096.0), ("12.5", 12.5), (" 0.5 ", 0.5)],
)
def test_extract_cache_mb(
    clean_env: pytest.MonkeyPatch, value: str | None, expected: float
) -> None:
    if value is not None:
        clean_env.setenv(settings.EXTRACT_CACHE_MB_ENV, value)
    assert settings.extract_cache_mb() == expected


@pytest.mark.parametrize("value", ["inf", "-inf", "nan", "-1", "0", "-0", "abc", "1e400", "1,5"])
def test_extract_cache_mb_refuses_what_is_not_a_size(
    clean_env: pytest.MonkeyPatch, value: str
) -> None:
    clean_env.setenv(settings.EXTRACT_CACHE_MB_ENV, value)
    with pytest.raises(InputError) as caught:
        settings.extract_cache_mb()
    message = str(caught.value)
    assert "\n" not in message
    assert f"{settings.EXTRACT_CACHE_MB_ENV}={value!r}" in message
    assert "number of MiB above 0" in message and settings.NO_CACHE_ENV in message


@pytest.mark.parametrize(
    ("value", "expected"), [(None, 512.0), ("", 512.0), ("0", 0.0), ("2048", 2048.0)]
)
def test_locations_on_disk_mb(
    clean_env: pytest.MonkeyPatch, value: str | None, expected: float
) -> None:
    if value is not None:
        clean_env.setenv(settings.LOCATIONS_ON_DISK_MB_ENV, value)
    assert settings.locations_on_disk_mb() == expected


@pytest.mark.parametrize("value", ["big", "-1", "nan", "inf", "1e400"])
def test_locations_on_disk_mb_refuses_what_is_not_a_size(
    clean_env: pytest.MonkeyPatch, value: str
) -> None:
    """Not a silent default: a typo would otherwise change where locations go unseen."""
    clean_env.setenv(settings.LOCATIONS_ON_DISK_MB_ENV, value)
    with pytest.raises(InputError) as caught:
        settings.locations_on_disk_mb()
    message = str(caught.value)
    assert "\n" not in message and f"{settings.LOCATIONS_ON_DISK_MB_ENV}={value!r}" in message


@pytest.mark.parametrize(
    ("value", "enabled"), [(None, True), ("", True), ("0", True), ("1", False), ("yes", False)]
)
def test_cache_enabled(clean_env: pytest.MonkeyPatch, value: str | None, enabled: bool) -> None:
    if value is not None:
        clean_env.setenv(settings.NO_CACHE_ENV, value)
    assert settings.cache_enabled() is enabled


def test_nominatim_url(clean_env: pytest.MonkeyPatch) -> None:
    assert settings.nominatim_url() == "https://nominatim.openstreetmap.org"
    clean_env.setenv(settings.NOMINATIM_URL_ENV, "http://127.0.0.1:9/")
    assert settings.nominatim_url() == "http://127.0.0.1:9/"


def test_user_agent_names_the_package() -> None:
    assert re.fullmatch(r"stations-generator/\S+", settings.user_agent())


def test_env_names_are_the_documented_ones() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    for name in (
        settings.OVERPASS_URL_ENV,
        settings.CACHE_DIR_ENV,
        settings.NOMINATIM_URL_ENV,
        settings.EXTRACT_CACHE_DIR_ENV,
        settings.EXTRACT_CACHE_MB_ENV,
    ):
        assert f"`{name}`" in readme
    assert f"`{settings.NO_CACHE_ENV}=1`" in readme
