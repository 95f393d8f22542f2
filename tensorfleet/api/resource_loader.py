"""``tf.resource_loader``: paths of data files beside a program's source."""

from tensorfleet.platform.resource_loader import (get_data_files_path, get_path_to_datafile,
    get_root_dir_with_all_resources, load_resource, readahead_file_path)

__all__ = ["get_data_files_path", "get_path_to_datafile", "get_root_dir_with_all_resources",
           "load_resource", "readahead_file_path"]
