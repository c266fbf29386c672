"""Presets of the SC'18 divergence analysis.

The direction list restates, as data, which metrics NERSC/tokio-abcutils
``abcutils/abcconfig.json`` (``metric_big_is_good``) marks as higher-is-worse; every metric not
listed defaults to higher-is-better, as in the reference.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

__all__ = [
    "PRESETS",
    "TOKIO_HIGHER_IS_WORSE",
    "TOKIO_METRIC_LABELS",
    "TOKIO_PLATFORM_LABELS",
    "UMAMI_METRICS",
    "tokio_directions",
]

#: The 106 metric names the TOKIO configuration lists as higher-is-worse.
TOKIO_HIGHER_IS_WORSE: frozenset[str] = frozenset(
    """
contention_bw contention_nodehrs contention_opens contention_ops contention_read_bw
contention_read_ops contention_stats contention_write_bw contention_write_ops
darshan_biggest_api_bytes darshan_biggest_read_api darshan_biggest_read_api_bytes
darshan_biggest_read_api_files darshan_biggest_read_fs darshan_biggest_read_fs_bytes
darshan_biggest_write_api darshan_biggest_write_api_bytes darshan_biggest_write_api_files
darshan_biggest_write_fs darshan_biggest_write_fs_bytes darshan_io_time
darshan_read_or_write_job darshan_total_gibs_posix darshan_walltime fs_ave_close_ops_per_sec
fs_ave_getattr_ops_per_sec fs_ave_getxattr_ops_per_sec fs_ave_link_ops_per_sec fs_ave_mds_cpu
fs_ave_mkdir_ops_per_sec fs_ave_mknod_ops_per_sec fs_ave_open_ops_per_sec fs_ave_oss_cpu
fs_ave_rename_ops_per_sec fs_ave_rmdir_ops_per_sec fs_ave_setattr_ops_per_sec
fs_ave_statfs_ops_per_sec fs_ave_unlink_ops_per_sec fs_frac_missing fs_frac_zero_read
fs_frac_zero_written fs_max_close_ops_per_sec fs_max_getattr_ops_per_sec
fs_max_getxattr_ops_per_sec fs_max_link_ops_per_sec fs_max_mds_cpu fs_max_mkdir_ops_per_sec
fs_max_mknod_ops_per_sec fs_max_open_ops_per_sec fs_max_oss_cpu fs_max_rename_ops_per_sec
fs_max_rmdir_ops_per_sec fs_max_setattr_ops_per_sec fs_max_statfs_ops_per_sec
fs_max_unlink_ops_per_sec fs_min_close_ops_per_sec fs_min_getattr_ops_per_sec
fs_min_getxattr_ops_per_sec fs_min_link_ops_per_sec fs_min_mds_cpu fs_min_mkdir_ops_per_sec
fs_min_mknod_ops_per_sec fs_min_open_ops_per_sec fs_min_oss_cpu fs_min_rename_ops_per_sec
fs_min_rmdir_ops_per_sec fs_min_setattr_ops_per_sec fs_min_statfs_ops_per_sec
fs_min_unlink_ops_per_sec fs_tot_bytes_read fs_tot_bytes_written fs_tot_close_ops
fs_tot_getattr_ops fs_tot_getxattr_ops fs_tot_gibs_read fs_tot_gibs_written fs_tot_link_ops
fs_tot_metadata_ops fs_tot_mkdir_ops fs_tot_mknod_ops fs_tot_open_ops fs_tot_readdir_ops
fs_tot_rename_ops fs_tot_rmdir_ops fs_tot_setattr_ops fs_tot_statfs_ops fs_tot_unlink_ops
fshealth_ost_avg_full_kib fshealth_ost_avg_full_pct fshealth_ost_avg_overloaded_ost_per_oss
fshealth_ost_avg_overloaded_overload_factor fshealth_ost_failures_lead_secs
fshealth_ost_fullness_lead_secs fshealth_ost_least_full_kib fshealth_ost_least_full_pct
fshealth_ost_most_full_kib fshealth_ost_most_full_pct fshealth_ost_overloaded_oss_count
fshealth_ost_overloaded_ost_count fshealth_ost_overloaded_pct jobsdb_concurrent_jobs
jobsdb_concurrent_nodehrs jobsdb_concurrent_nodes topology_job_avg_radius
topology_job_max_radius topology_job_min_radius
""".split()
)

#: The nine contributor metrics of the paper (``umami_row_order`` without the target).
UMAMI_METRICS: tuple[str, ...] = (
    "contention_bw",
    "contention_opens",
    "contention_stats",
    "contention_ops",
    "fs_ave_mds_cpu",
    "fs_ave_oss_cpu",
    "fshealth_ost_most_full_pct",
    "fshealth_ost_overloaded_oss_count",
    "topology_job_max_radius",
)

#: Human-readable labels of the paper's metrics (Fig. 10).
TOKIO_METRIC_LABELS: MappingProxyType[str, str] = MappingProxyType(
    {
        "darshan_normalized_perf_by_max": "Application performance",
        "contention_bw": "Bandwidth contention",
        "contention_opens": "open(2) contention",
        "contention_stats": "stat(2) contention",
        "contention_ops": "IOPS contention",
        "fs_ave_mds_cpu": "Metadata server load",
        "fs_ave_oss_cpu": "Data server load",
        "fshealth_ost_most_full_pct": "File system fullness",
        "fshealth_ost_overloaded_oss_count": "LUN failover count",
        "topology_job_max_radius": "Max job radius",
    }
)

#: Public labels of the five test platforms.
TOKIO_PLATFORM_LABELS: MappingProxyType[str, str] = MappingProxyType(
    {
        "cscratch@cori-knl": "Cori Lustre",
        "scratch1@edison": "Edison Lustre fs1",
        "scratch2@edison": "Edison Lustre fs2",
        "scratch3@edison": "Edison Lustre fs3",
        "mira-fs1@mira": "Mira GPFS",
    }
)


def tokio_directions() -> dict[str, bool]:
    """The ``"tokio"`` direction preset: ``{metric: False}`` for every higher-is-worse name."""
    return dict.fromkeys(sorted(TOKIO_HIGHER_IS_WORSE), False)


#: Parameter presets. ``None`` for ``long`` would mean the global mean.
PRESETS: MappingProxyType[str, MappingProxyType[str, Any]] = MappingProxyType(
    {
        "sc18-final": MappingProxyType(
            {
                "short": "14D",
                "long": "49D",
                "classifier": "minmax",
                "quantile": 0.25,
                "min_observations": 1,
                "significance_level": 0.10,
                "skip_constant": False,
                "metrics_higher_is_better": "tokio",
                "metrics": UMAMI_METRICS,
                "correlation_min_points": 3,
                "correlation_p_threshold": 1e-5,
            }
        ),
        "sc18-draft": MappingProxyType(
            {
                "short": "7D",
                "long": "28D",
                "classifier": "percentile",
                "quantile": 0.25,
                "min_observations": 7,
                "significance_level": 0.10,
                "skip_constant": True,
                "metrics_higher_is_better": "tokio",
                "metrics": UMAMI_METRICS,
                "correlation_min_points": 3,
                "correlation_p_threshold": 1e-5,
            }
        ),
    }
)
