"""Few labels: a teacher that carries pretrained knowledge (the SetFit method over the MiniLM package), the compact
model distilled from it on the user's unlabelled texts, and the texts worth labelling next."""
from .pipeline import FewLabelResult, FewLabelRun, train_few_labels
from .suggest import Suggestion, choose_for_labelling, rank_for_labelling, sample_for_labelling
from .teacher import FewLabelTeacher, TeacherSettings, is_teacher, train_teacher

__all__ = ["FewLabelResult", "FewLabelRun", "FewLabelTeacher", "Suggestion", "TeacherSettings", "choose_for_labelling",
           "is_teacher", "rank_for_labelling", "sample_for_labelling", "train_few_labels", "train_teacher"]
