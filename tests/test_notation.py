"""The Module 03 notation page: its constants are the ones the answers quote.

The page ``deck/source/module03/notation.md`` carries a machine-readable YAML block of hardware
constants. These tests read it and check every network-card bandwidth and every H100/H200 peak
that the answers quote against it, so that one card cannot price a NIC at 45 GB/s and the next at
50 GB/s, or quote a wrong peak, without saying why. The worked examples' ``calc`` blocks are
quotes too: their bandwidth and peak inputs, and the calculators' defaults they fall back on, are
the page's figures unless the block or its card marks the departure. They also check the
conventions the page fixes: every bubble fraction names its basis, and the pipeline B never
silently means the full backward.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from infracards.calc import MODELS, find_examples
from infracards.services.publish import load_source
from tools.kernels.blocks import FENCE

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "deck" / "source" / "module03"
PAGE = SOURCE / "notation.md"
SENTENCE_END = re.compile(r"[。；;！？!?\n]")

NIC_WORDS = re.compile(
    r"网卡|NIC|\bIB\b|InfiniBand|RDMA|RoCE|\b400G\b|400 ?Gb/s|ConnectX|\bCX-?7\b|\bNDR\b"
    r"|跨节点|跨机|机间|节点间|\bnic\b|\bib\b|\bnet\b",
    re.I,
)
OTHER_LINK_WORDS = re.compile(r"NVLink|NVLS|NVSwitch|HBM|PCIe|机内|节点内|DRAM|DDR|nvl\b", re.I)
LINE_RATE_MARK = re.compile(r"线速|line rate|标称", re.I)
MEASURED_MARK = re.compile(r"实测|measured|nccl-tests|README|期望", re.I)
OTHER_HARDWARE_MARK = re.compile(
    r"H800|A100|\bH20\b|GB200|NVL72|SM100|B200|200 ?Gb/s|\b200G\b|100 ?Gb/s|DeepSeek-V3 报告"
)
DEPARTURE_MARK = re.compile(r"偏离")
PRODUCT_BEFORE = re.compile(r"(\d+(?:\.\d+)?)\s?[×x*·]\s?(\d+(?:\.\d+)?)[^=≈]{0,20}[=≈]\s?约?\s?$")
AGGREGATE_MARK = re.compile(r"聚合|整机|每节点|上限|busbw|ring|张网卡|leaving the node", re.I)
GBS = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(?:\s?[–-]\s?(\d+(?:\.\d+)?))?\s?GB/s")

PEAK_UNIT = re.compile(r"(?<![\d.,])(\d[\d,]*(?:\.\d+)?)\s?(?:TFLOPS|TFLOP/s|TFLOPs)\b")
PEAK_CODE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)e12\b")
PEAK_CONTEXT = re.compile(r"峰值|peak|dense|稠密|稀疏|sparse|规格", re.I)
NOT_A_PEAK = re.compile(r"有效|effective|eff\b|实测|measured|MFU|达到|achieved|ASSUME", re.I)
GPU_OF_PAGE = re.compile(r"H100|H200")
PEAK_NAME = re.compile(r"peak|H100|H200", re.I)
SPARSE_WORD = re.compile(r"稀疏|sparse|2:4", re.I)
FP8_WORD = re.compile(r"FP8|fp8")

BUBBLE_TOTAL = re.compile(r"\(p\s?[−-]\s?1\)\s?/\s?\(m\s?\+\s?p\s?[−-]\s?1\)")
BUBBLE_IDEAL = re.compile(r"\(p\s?[−-]\s?1\)\s?/\s?(?:m\b|\(v\s?·\s?m\))")
TOTAL_BASIS = re.compile(r"占比|总时间|总 step|/ ?总|占总")
IDEAL_BASIS = re.compile(r"理想|气泡比|相对计算|为计算的|/ ?计算")
NVLINK_MARK = re.compile(r"NVLS|SHARP|线速|line rate", re.I)
CALC_FIGURES = {"nic": "GB/s", "nvlink": "GB/s", "peak": "TFLOPS"}
"""calc flags whose values are the page's constants, and the unit prose writes them in."""
FULL_BACKWARD_AS_B = re.compile(r"F\s?\+\s?B\)|F&B\s?\+\s?B\s?[−-]\s?3W|F\s?\+\s?B\s?[−-]\s?2W")
ORIGINAL_TABLE_MARK = re.compile(r"原表|原式|README|报告表 2|含 W")


def page_constants() -> dict[str, Any]:
    """The YAML block under the page's "机读常数" heading."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index("## 4. 机读常数") :]
    blocks = [code for _indent, lang, code in FENCE.findall(section) if lang == "yaml"]
    assert len(blocks) == 1, "the constants section holds exactly one yaml block"
    loaded = yaml.safe_load(blocks[0])
    assert isinstance(loaded, dict)
    return loaded


@dataclass(frozen=True)
class Sentence:
    """One prose sentence, or one line of code, of one card."""

    card: str
    text: str
    is_code: bool


@dataclass(frozen=True)
class Quote:
    """One number a card quotes, with the sentence it stands in."""

    card: str
    value: float
    sentence: str
    before: str
    after: str


def sentences(card_id: str, answer: str) -> list[Sentence]:
    """The prose split into sentences, and every line of code with its comments."""
    prose = FENCE.sub("\n", answer)
    out = [Sentence(card_id, s, False) for s in SENTENCE_END.split(prose) if s.strip()]
    for _indent, _lang, code in FENCE.findall(answer):
        out += [Sentence(card_id, line, True) for line in code.splitlines() if line.strip()]
    return out


def all_sentences() -> list[Sentence]:
    """Every card's key points and answer, cut into sentences."""
    source = load_source(SOURCE)
    out = []
    for card in source.cards:
        out += [Sentence(card.card_id, point, False) for point in card.key_points]
        out += sentences(card.card_id, card.answer)
    return out


def nearest_link(sentence: str, start: int, end: int) -> str | None:
    """Which link a figure belongs to: the closest link word before it, else one just after."""
    before: tuple[int, str] | None = None
    after: tuple[int, str] | None = None
    for kind, words in (("nic", NIC_WORDS), ("other", OTHER_LINK_WORDS)):
        for found in words.finditer(sentence):
            gap_before, gap_after = start - found.end(), found.start() - end
            if found.end() <= start and gap_before <= 40:
                if before is None or gap_before < before[0]:
                    before = (gap_before, kind)
            elif 0 <= gap_after <= 15 and (after is None or gap_after < after[0]):
                after = (gap_after, kind)
    chosen = before or after
    return chosen[1] if chosen else None


def nic_quotes(pairs: list[Sentence]) -> list[Quote]:
    quotes = []
    for card, sentence in ((p.card, p.text) for p in pairs):
        for found in GBS.finditer(sentence):
            if nearest_link(sentence, found.start(), found.end()) != "nic":
                continue
            for group in (1, 2):
                if found.group(group):
                    quotes.append(
                        Quote(
                            card,
                            float(found.group(group)),
                            sentence,
                            sentence[: found.start()],
                            sentence[found.end() :],
                        )
                    )
    return quotes


def nic_problem(quote: Quote, nic: dict[str, Any]) -> str | None:
    """Why a NIC figure breaks the page's constants, or None when it follows them."""
    s = quote.sentence
    if quote.value == nic["effective_gb_s"]:
        return None
    if MEASURED_MARK.search(s) or OTHER_HARDWARE_MARK.search(s) or DEPARTURE_MARK.search(s):
        return None
    if quote.value == nic["line_rate_gb_s"]:
        return None if LINE_RATE_MARK.search(s) else "50 GB/s without 线速: use 45 or say 线速"
    product = PRODUCT_BEFORE.search(quote.before[-30:])
    if product:
        operands = {float(product.group(1)), float(product.group(2))}
        if nic["effective_gb_s"] in operands or (
            nic["line_rate_gb_s"] in operands and LINE_RATE_MARK.search(s)
        ):
            return None
    per_node = {k * nic["effective_gb_s"] for k in range(2, 9)}
    per_node_line = {k * nic["line_rate_gb_s"] for k in range(2, 9)}
    if AGGREGATE_MARK.search(s) and (
        quote.value in per_node or (quote.value in per_node_line and LINE_RATE_MARK.search(s))
    ):
        return None
    return f"{quote.value:g} GB/s is neither the page's NIC figure nor marked"


def peak_quotes(pairs: list[Sentence]) -> list[Quote]:
    """TFLOPS figures said of an H100 or H200 that are not marked as achieved or effective."""
    quotes = []
    for card, sentence, is_code in ((p.card, p.text, p.is_code) for p in pairs):
        if not GPU_OF_PAGE.search(sentence):
            continue
        patterns = [PEAK_UNIT]
        if is_code and PEAK_NAME.search(sentence.split("=")[0]):
            patterns.append(PEAK_CODE)
        for pattern in patterns:
            for found in pattern.finditer(sentence):
                before = sentence[max(0, found.start() - 40) : found.start()]
                after = sentence[found.end() : found.end() + 25]
                said_of_gpu = GPU_OF_PAGE.search(before) or PEAK_CONTEXT.search(before + after)
                if not said_of_gpu or NOT_A_PEAK.search(before[-15:]) or "MFU" in after[:8]:
                    continue
                value = float(found.group(1).replace(",", ""))
                quotes.append(Quote(card, value, sentence, before, after))
    return quotes


def peak_problem(quote: Quote, gpus: dict[str, Any]) -> str | None:
    """Why a peak breaks the page's constants, or None when it is one of them."""
    precision = "fp8" if FP8_WORD.search(quote.before[-30:]) else "bf16"
    later = SPARSE_WORD.search(quote.after[:20])
    sparse_after = (
        later is not None
        and not re.search(r"\d{3,}", quote.after[: later.start()])
        and not re.search(r"\d{3,}", quote.after[later.end() : later.end() + 10])
    )
    kind = "sparse" if SPARSE_WORD.search(quote.before[-12:]) or sparse_after else "dense"
    allowed = {gpu[f"{precision}_{kind}_tflops"] for gpu in gpus.values()}
    if quote.value in allowed:
        return None
    return f"{quote.value:g} TFLOPS is not the page's H100/H200 {precision} {kind} peak {allowed}"


def page_figure(flag: str, constants: dict[str, Any]) -> set[float]:
    """The figures of the page a calc flag may take without a mark."""
    if flag == "nic":
        return {constants["nic"]["effective_gb_s"]}
    if flag == "nvlink":
        return {constants["nvlink4"]["allreduce_busbw_gb_s"]}
    return {
        constants[gpu][f"{p}_dense_tflops"]
        for gpu in ("h100_sxm", "h200_sxm")
        for p in ("bf16", "fp8")
    }


def departure_marked(flag: str, value: float, text: str, constants: dict[str, Any]) -> bool:
    """Whether ``text`` says why a figure is not the page's: measured, other hardware, a stated
    departure; 50 GB/s only as 线速; NVLink's 450 line rate or NVLS."""
    if (
        MEASURED_MARK.search(text)
        or OTHER_HARDWARE_MARK.search(text)
        or DEPARTURE_MARK.search(text)
    ):
        return True
    if flag == "nic":
        return value == constants["nic"]["line_rate_gb_s"] and bool(LINE_RATE_MARK.search(text))
    return flag == "nvlink" and bool(NVLINK_MARK.search(text))


def calc_problems(
    card_id: str, answer: str, prose: list[str], constants: dict[str, Any]
) -> list[str]:
    """Each calc block input that departs from the page with no mark in the block's comments or
    in a sentence of the card that quotes the same figure with its unit."""
    problems = []
    rows = answer.splitlines()
    for example in find_examples(answer):
        body = rows[example.line :]
        block = body[: next(i for i, row in enumerate(body) if row.strip() == "```")]
        comments = " ".join(row for row in block if row.strip().startswith("#"))
        for flag, text in example.inputs:
            if flag not in CALC_FIGURES:
                continue
            value = float(text)
            if value in page_figure(flag, constants):
                continue
            unit = CALC_FIGURES[flag]
            figure = re.compile(rf"(?<![\d.]){re.escape(f'{value:g}')}\s?{unit}")
            quoted = [s for s in prose if figure.search(s)]
            if departure_marked(flag, value, comments, constants) or any(
                departure_marked(flag, value, s, constants) for s in quoted
            ):
                continue
            problems.append(
                f"{card_id}: line {example.line}: {flag}: {text} is not the page's "
                f"{sorted(page_figure(flag, constants))} and nothing says why"
            )
    return problems


CONSTANTS = page_constants()
PAIRS = all_sentences()


def test_the_page_holds_the_constants_the_deck_uses() -> None:
    nic = CONSTANTS["nic"]
    assert nic["line_rate_gb_s"] * 8 == nic["line_rate_gbit_s"]
    assert nic["effective_gb_s"] < nic["line_rate_gb_s"]
    for gpu in ("h100_sxm", "h200_sxm"):
        peaks = CONSTANTS[gpu]
        assert abs(peaks["bf16_sparse_tflops"] - 2 * peaks["bf16_dense_tflops"]) <= 1
        assert peaks["fp8_dense_tflops"] == peaks["bf16_sparse_tflops"]
    assert (
        CONSTANTS["nvlink4"]["bidirectional_gb_s"] == 2 * CONSTANTS["nvlink4"]["per_direction_gb_s"]
    )


def test_the_page_renders_in_a_terminal() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert not re.search(r"\$[^$\n]+\$|\\frac|\\cdot|\\times", FENCE.sub("", text))
    for _indent, _lang, block in FENCE.findall(text):
        for line in block.splitlines():
            assert len(line) <= 76, line


def test_every_nic_bandwidth_in_the_answers_is_the_pages() -> None:
    quotes = nic_quotes(PAIRS)
    assert len(quotes) >= 60, f"found only {len(quotes)} NIC figures: the detector broke"
    problems = [
        f"{q.card}: {why}: {q.sentence.strip()[:160]}"
        for q in quotes
        if (why := nic_problem(q, CONSTANTS["nic"]))
    ]
    assert not problems, "\n".join(problems)


def test_every_h100_h200_peak_in_the_answers_is_the_pages() -> None:
    quotes = peak_quotes(PAIRS)
    assert len(quotes) >= 10, f"found only {len(quotes)} peak figures: the detector broke"
    gpus = {k: CONSTANTS[k] for k in ("h100_sxm", "h200_sxm")}
    problems = [
        f"{q.card}: {why}: {q.sentence.strip()[:160]}"
        for q in quotes
        if (why := peak_problem(q, gpus))
    ]
    assert not problems, "\n".join(problems)


def test_the_calculators_default_to_the_pages_constants() -> None:
    """A calc block that leaves out the fabric or the peak is priced at the page's figures."""
    defaults = {
        (flag, model.param(flag).default)
        for model in MODELS.values()
        for flag in CALC_FIGURES
        if flag in {p.flag for p in model.params}
    }
    assert {flag for flag, _ in defaults} == set(CALC_FIGURES)
    for flag, default in defaults:
        assert isinstance(default, float)
        assert default in page_figure(flag, CONSTANTS), (flag, default)


def test_every_calc_block_prices_the_fabric_and_peak_as_the_page() -> None:
    source = load_source(SOURCE)
    problems: list[str] = []
    checked = 0
    for card in source.cards:
        prose = [p.text for p in PAIRS if p.card == card.card_id and not p.is_code]
        checked += sum(
            flag in CALC_FIGURES for e in find_examples(card.answer) for flag, _ in e.inputs
        )
        problems += calc_problems(card.card_id, card.answer, prose, CONSTANTS)
    assert checked >= 20, f"found only {checked} calc inputs to check: the detector broke"
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("block", "prose", "ok"),
    [
        ("model: collective\nranks: 8; bytes: 1e9; nvlink: 360", "", True),
        ("model: collective\nranks: 8; bytes: 1e9; nvlink: 400", "", False),
        ("model: collective\nranks: 8; bytes: 1e9; nvlink: 370", "机内 370 GB/s。", False),
        ("model: collective\nranks: 8; bytes: 1e9; nvlink: 370", "#212 实测 370 GB/s", True),
        ("# NVLS 的 busbw\nmodel: collective\nranks: 8; bytes: 1e9; nvlink: 480", "", True),
        ("model: collective\nranks: 64; bytes: 1e9; nic: 50", "", False),
        ("# IB 线速\nmodel: collective\nranks: 64; bytes: 1e9; nic: 50", "", True),
        ("# 8×200G\nmodel: collective\nranks: 64; bytes: 1e9; nic: 22.5", "", True),
        ("model: train-time\nparams: 7e9; tokens: 1e12; gpus: 8; peak: 312", "", False),
        ("# A100\nmodel: train-time\nparams: 7e9; tokens: 1e12; gpus: 8; peak: 312", "", True),
    ],
)
def test_the_calc_check_tells_a_marked_departure_from_a_stray_one(
    block: str, prose: str, ok: bool
) -> None:
    expect = "time_ms = 1 ± 1e9" if "collective" in block else "days = 1 ± 1e9"
    answer = f"```calc\n{block}\nexpect: {expect}\n```\n"
    assert (calc_problems("t", answer, [prose], CONSTANTS) == []) == ok


def test_every_bubble_fraction_names_its_basis() -> None:
    found = 0
    problems = []
    for card, sentence in ((p.card, p.text) for p in PAIRS if not p.is_code):
        for pattern, basis in ((BUBBLE_TOTAL, TOTAL_BASIS), (BUBBLE_IDEAL, IDEAL_BASIS)):
            for _ in pattern.finditer(sentence):
                found += 1
                if not basis.search(sentence):
                    problems.append(f"{card}: {sentence.strip()[:160]}")
    assert found >= 10, f"found only {found} bubble fractions: the detector broke"
    assert not problems, "\n".join(problems)


def test_pipeline_b_never_silently_means_the_full_backward() -> None:
    problems = [
        f"{p.card}: {p.text.strip()[:160]}"
        for p in PAIRS
        if FULL_BACKWARD_AS_B.search(p.text) and not ORIGINAL_TABLE_MARK.search(p.text)
    ]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("sentence", "ok"),
    [
        ("机间每卡一张 400G 网卡，有效 45 GB/s。", True),
        ("若每卡只能走自己的 400G 网卡，busbw 约 50 GB/s，需要约 0.28 s。", False),
        ("IB 每卡约 50 GB/s，前向约 12.5 ms。", False),
        ("ConnectX-7 线速 400 Gb/s = 50 GB/s。", True),
        ("跨节点每卡 40 GB/s。", False),
        ("跨节点每卡 40 GB/s（偏离本页的 45 GB/s：与 PP 流量共用网卡）。", True),
        ("nccl-tests 实测每网卡 46–48 GB/s。", True),
        ("H800 上 NVLink 160 GB/s、IB 50 GB/s。", True),
        ("8 张网卡的 busbw 上限约 8 × 45 = 360 GB/s。", True),
        ("NVLink 约 450 GB/s 单向。", True),
    ],
)
def test_the_nic_check_tells_the_pages_figure_from_a_stray_one(sentence: str, ok: bool) -> None:
    quotes = nic_quotes([Sentence("t", sentence.rstrip("。"), False)])
    problems = [nic_problem(q, CONSTANTS["nic"]) for q in quotes]
    assert all(p is None for p in problems) == ok, problems


@pytest.mark.parametrize(
    ("sentence", "ok"),
    [
        ("峰值按 H100 SXM BF16 dense 989 TFLOPS 计", True),
        ("H100 SXM BF16 dense 峰值 1000 TFLOPS", False),
        ("H100 FP8 dense 峰值 3958 TFLOPS", False),
        ("H100 FP8 稀疏峰值 3958 TFLOPS", True),
        ("H200 稠密 bf16 989 TFLOPS", True),
        ("H100_BF16 = 990e12  # H100 SXM dense BF16 peak", False),
        ("PEAK = 989e12  # H100 dense BF16 (1979e12 is with 2:4 sparsity)", True),
    ],
)
def test_the_peak_check_tells_the_pages_figure_from_a_wrong_one(sentence: str, ok: bool) -> None:
    quotes = peak_quotes([Sentence("t", sentence, "=" in sentence)])
    assert quotes, "the detector must see this quote"
    gpus = {k: CONSTANTS[k] for k in ("h100_sxm", "h200_sxm")}
    assert all(peak_problem(q, gpus) is None for q in quotes) == ok
