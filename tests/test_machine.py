from tests.machine import machine_line, this_machine

AVX512 = """processor\t: 0
model name\t: AMD EPYC
flags\t\t: fpu sse2 avx fma avx2 avx512f avx512dq avx512bw avx512vl avx512_vnni avx_vnni
processor\t: 1
model name\t: other
flags\t\t: fpu
"""
AVX2 = "model name : Intel(R) Xeon(R)\nflags : fpu sse4_2 avx fma avx2\n"


def test_the_line_names_the_cpu_and_its_vector_flags() -> None:
    assert machine_line(AVX512, 2) == (
        "machine: 2 cores, AMD EPYC; vector flags: "
        "avx2 fma avx512f avx512bw avx512dq avx512vl avx512_vnni avx_vnni"
    )


def test_an_avx2_only_cpu_says_what_it_lacks() -> None:
    assert machine_line(AVX2, 2) == (
        "machine: 2 cores, Intel(R) Xeon(R); vector flags: avx2 fma (no avx512f, avx512_vnni)"
    )


def test_without_cpuinfo_the_line_still_reads() -> None:
    assert machine_line("", None) == (
        "machine: ? cores, unknown CPU; vector flags: none (no avx512f, avx512_vnni)"
    )
    assert this_machine().startswith("machine: ")
